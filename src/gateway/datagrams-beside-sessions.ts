/**
 * Records that arrive by UDP for a device id with a TCP (or TLS) session open on this gateway.
 * A tracker talks over one transport at a time, so such datagrams are most likely someone else
 * who knows the IMEI: they are still stored (the id is all UDP has to go by), but they never
 * reach the session's movement window, and they are counted and logged so an operator sees them.
 * Any protocol with a UDP side (Teltonika now, Suntech next) reports here.
 */
import type { Logger } from 'pino';
import type { DeviceProtocol } from '../domain/trackers.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { OncePerWindow } from './once-per-window.js';
import type { TrackerSessions } from './tracker-sessions.js';

/** One line per device id a minute, at most 100 ids a minute: the sender controls how many come. */
const LOG_WINDOW_MS = 60_000;
const MAX_IDS_LOGGED = 100;

export class DatagramsBesideSessions {
  readonly #sessions: TrackerSessions;
  readonly #metrics: GatewayMetrics;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #logged = new OncePerWindow(LOG_WINDOW_MS, MAX_IDS_LOGGED);

  constructor(sessions: TrackerSessions, metrics: GatewayMetrics, logger: Logger, now: () => number) {
    this.#sessions = sessions;
    this.#metrics = metrics;
    this.#logger = logger;
    this.#now = now;
  }

  /** `records` came by UDP from `address` naming `deviceId`. */
  note(protocol: DeviceProtocol, deviceId: string, address: string, records: number): void {
    if (this.#sessions.get(deviceId) === undefined || records === 0) return;
    this.#metrics.udpBesideSession.inc({ protocol }, records);
    if (!this.#logged.passes(`${protocol}:${deviceId}`, this.#now())) return;
    this.#logger.warn({ protocol, deviceId, address, records }, 'UDP records for a tracker connected over TCP: stored, but they do not count for its ignition interlock');
  }
}
