import type { ServiceConfig } from '../config/settings.js';
import type { Clock } from '../domain/clock.js';
import { INITIATE_TIMEOUT_MS, STATUS_POLL_TIMEOUT_MS } from '../domain/initiation.js';
import { TrackerCommandLink } from '../gateway/tracker-command-link.js';
import { ConnectorRegistry, type ConnectorSettings } from '../oem/connector-registry.js';
import type { StoreConnection } from '../store/connection.js';

/** How long the automaker may take to answer (D6); tests that make it hang wait less. */
export interface AutomakerTimeouts {
  readonly initiateTimeoutMs: number;
  readonly pollTimeoutMs: number;
}

export const AUTOMAKER_TIMEOUTS: AutomakerTimeouts = Object.freeze({ initiateTimeoutMs: INITIATE_TIMEOUT_MS, pollTimeoutMs: STATUS_POLL_TIMEOUT_MS });

/** How automakers are reached for commands: over HTTP, and `device` OEMs through their trackers' rows. */
export function connectorSettingsOf(
  config: ServiceConfig, store: StoreConnection, clock: Clock, timeouts: AutomakerTimeouts = AUTOMAKER_TIMEOUTS,
): ConnectorSettings {
  return { ...timeouts, trackers: new TrackerCommandLink(store, clock, { commandTimeoutMs: config.commandTimeoutMs }) };
}

export function connectorsOf(config: ServiceConfig, store: StoreConnection, clock: Clock, timeouts?: AutomakerTimeouts): ConnectorRegistry {
  return new ConnectorRegistry(connectorSettingsOf(config, store, clock, timeouts));
}
