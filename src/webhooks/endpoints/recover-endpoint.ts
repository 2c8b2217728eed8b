import { randomUUID } from 'node:crypto';
import { errors, ServiceError } from '../../domain/errors.js';
import { mayConcern } from '../../domain/event-visibility.js';
import type { StoreConnection } from '../../store/connection.js';
import { numberCommittedEvents } from '../../store/events-queries.js';
import { insertDeliveries } from '../../store/webhooks/deliveries.js';
import type { WebhookEndpointRow } from '../../store/webhooks/endpoints.js';
import { eventsPassedByStream, receivedEventIds, requeueDeliveries } from '../../store/webhooks/recovery.js';
import type { WebhookDeps } from '../webhook-deps.js';
import { ownEndpoint, type Owner } from './endpoint-resource.js';

const MAX_RECOVERED = 10_000;

/**
 * Queues again, oldest first, every event since `since` this endpoint may see and has not
 * received: failed and never attempted alike (events of a time it was disabled included). What
 * its stream has not reached yet is left to the stream.
 */
export async function recoverEndpoint(deps: WebhookDeps, owner: Owner, id: string, since: number) {
  const row = await ownEndpoint(deps, owner, id);
  if (row.status !== 'enabled') throw new ServiceError(errors.webhookEndpointNotEnabled);
  return queueMissedEvents(deps.store, row, since, deps.clock.now());
}

/** `recover` without the ownership check: the operator's `admin webhook replay` too. */
export async function queueMissedEvents(store: StoreConnection, row: WebhookEndpointRow, since: number, now: number): Promise<{ queued: number }> {
  await numberCommittedEvents(store);
  const types = JSON.parse(row.event_types) as string[];
  const viewer = { companyId: row.company_id, applicationId: row.application_id };
  const events = (await eventsPassedByStream(store.db, { id: row.id, companyId: row.company_id, types: types.includes('*') ? undefined : types }, since, MAX_RECOVERED))
    .filter((e) => mayConcern({ companyId: e.company_id, applicationId: e.application_id }, viewer));
  const received = await receivedEventIds(store.db, row.id, events);
  const missing = events.filter((e) => !received.has(e.id)).map((e) => e.id);
  await insertDeliveries(store.db, missing.map((eventId) => ({
    id: randomUUID(), endpoint_id: row.id, event_id: eventId, status: 'pending', attempts: 0, next_attempt_at: now,
    lease_owner: null, lease_until: null, last_status: null, last_error: null, created_at: now, updated_at: now,
  })));
  await requeueDeliveries(store.db, row.id, missing, now);
  return { queued: missing.length };
}
