import type { Migration, MigrationProvider } from 'kysely';
import type { DialectCapabilities } from '../dialect.js';
import { registryMigration } from './0001-registry.js';
import { telemetryMigration } from './0002-telemetry.js';
import { tripsMigration } from './0003-trips.js';
import { commandsMigration } from './0004-commands.js';
import { commandPartialIndexesMigration } from './0005-command-partial-indexes.js';
import { registryNotificationsMigration } from './0006-registry-notifications.js';
import { idempotencyKeysMigration } from './0007-idempotency-keys.js';
import { eventsMigration } from './0008-events.js';
import { tripCursorOpenTripMigration } from './0009-trip-cursor-open-trip.js';
import { trackersMigration } from './0010-trackers.js';
import { eventFeedMigration } from './0011-event-feed.js';
import { webhooksMigration } from './0012-webhooks.js';
import { webhookStreamsMigration } from './0013-webhook-streams.js';
import { webhookAttemptPositionsMigration } from './0014-webhook-attempt-positions.js';
import { commandHistoryMigration } from './0015-command-history.js';
import { consoleSessionsMigration } from './0016-console-sessions.js';
import { consoleCommandProofMigration } from './0017-console-command-proof.js';
import { tripShardsMigration } from './0018-trip-shards.js';
import { simulationStateMigration } from './0019-simulation-state.js';
import { vehicleActivityMigration } from './0020-vehicle-activity.js';
import { geofencesMigration } from './0021-geofences.js';
import { positionAccuracyMigration } from './0022-position-accuracy.js';
import { geofenceWatchMigration } from './0023-geofence-watch.js';
import { alertRulesMigration } from './0024-alert-rules.js';
import { alertStatesMigration } from './0025-alert-states.js';
import { silenceDueMigration } from './0026-silence-due.js';
import { watchCursorVersionMigration } from './0027-watch-cursor-version.js';
import { auditTrailMigration } from './0028-audit-trail.js';
import { applicationScopesMigration } from './0029-application-scopes.js';
import { usersMigration } from './0030-users.js';
import { operatorsMigration } from './0032-operators.js';
import { ssoSubjectMigration } from './0033-sso-subject.js';
import { shareLinksMigration } from './0031-share-links.js';

/**
 * Every migration, in order. Migrations are forward-only: once landed, a migration is never
 * edited; a change is a new entry. A migration that differs by dialect takes the capabilities.
 */
export function migrationsFor(capabilities: DialectCapabilities): Readonly<Record<string, Migration>> {
  return Object.freeze({
    '0001-registry': registryMigration,
    '0002-telemetry': telemetryMigration(capabilities),
    '0003-trips': tripsMigration,
    '0004-commands': commandsMigration,
    '0005-command-partial-indexes': commandPartialIndexesMigration,
    '0006-registry-notifications': registryNotificationsMigration(capabilities),
    '0007-idempotency-keys': idempotencyKeysMigration,
    '0008-events': eventsMigration(capabilities),
    '0009-trip-cursor-open-trip': tripCursorOpenTripMigration,
    '0010-trackers': trackersMigration,
    '0011-event-feed': eventFeedMigration,
    '0012-webhooks': webhooksMigration,
    '0013-webhook-streams': webhookStreamsMigration,
    '0014-webhook-attempt-positions': webhookAttemptPositionsMigration,
    '0015-command-history': commandHistoryMigration,
    '0016-console-sessions': consoleSessionsMigration,
    '0017-console-command-proof': consoleCommandProofMigration,
    '0018-trip-shards': tripShardsMigration,
    '0019-simulation-state': simulationStateMigration,
    '0020-vehicle-activity': vehicleActivityMigration,
    '0021-geofences': geofencesMigration(capabilities),
    '0022-position-accuracy': positionAccuracyMigration,
    '0023-geofence-watch': geofenceWatchMigration,
    '0024-alert-rules': alertRulesMigration,
    '0025-alert-states': alertStatesMigration,
    '0026-silence-due': silenceDueMigration,
    '0027-watch-cursor-version': watchCursorVersionMigration,
    '0028-audit-trail': auditTrailMigration(capabilities),
    '0029-application-scopes': applicationScopesMigration,
    '0030-users': usersMigration,
    '0031-share-links': shareLinksMigration,
    '0032-operators': operatorsMigration,
    '0033-sso-subject': ssoSubjectMigration,
  });
}

export function migrationProvider(capabilities: DialectCapabilities): MigrationProvider {
  return { getMigrations: async () => ({ ...migrationsFor(capabilities) }) };
}
