/**
 * How many tracker connections the gateway holds: in total over its TCP listeners (Teltonika
 * TCP and TLS, OsmAnd HTTP) and per remote address. Every connection costs a file descriptor of
 * the process the API answers from too; without a cap, connections that send nothing but are
 * not closed yet (10 s before a login, `--tracker-idle-timeout` after) could take every
 * descriptor and `/healthz` would fail to accept. A connection over a cap is closed before a byte
 * is read, counted in `tracker_connections_refused_total`, and logged at most once a minute.
 */
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { addressKey } from '../domain/client-address.js';
import type { DeviceProtocol } from '../domain/trackers.js';
import type { GatewayMetrics, TrackerTransport } from './gateway-metrics.js';
import type { OpenFileLimit } from './open-file-limit.js';

export interface TrackerConnectionLimits {
  /** Connections open at once, all tracker listeners together. */
  readonly total: number;
  /** Per remote address (an IPv6 /64 counts as one); 0: no cap per address. */
  readonly perAddress: number;
}

/**
 * Descriptors always left to the rest of the process (API and operations connections, the
 * database, log and key files), whatever `--tracker-connections` says.
 */
export const MIN_RESERVED_DESCRIPTORS = 64;
/** What is assumed where the limit cannot be read (no /proc): a common default. */
const ASSUMED_OPEN_FILES = 1024;

/**
 * The caps for an open-file limit: by default half of it for trackers, the other half kept for the
 * rest; a configured total is honoured up to the limit less MIN_RESERVED_DESCRIPTORS, and `lowered`
 * says when it had to be lowered to that.
 */
export function trackerConnectionLimitsOf(
  configured: { readonly total: number | undefined; readonly perAddress: number }, limit: OpenFileLimit | undefined,
): TrackerConnectionLimits & { readonly lowered: boolean } {
  const files = limit?.soft ?? ASSUMED_OPEN_FILES;
  const most = Math.max(1, files - MIN_RESERVED_DESCRIPTORS);
  const wanted = configured.total ?? Math.max(1, Math.floor(files / 2));
  return { total: Math.min(wanted, most), perAddress: configured.perAddress, lowered: wanted > most };
}

const WARNING_INTERVAL_MS = 60_000;

export class TrackerConnectionCap {
  readonly #limits: TrackerConnectionLimits;
  readonly #metrics: GatewayMetrics;
  readonly #logger: Logger;
  readonly #perAddress = new Map<string, number>();
  #open = 0;
  #lastWarning = 0;

  constructor(limits: TrackerConnectionLimits, metrics: GatewayMetrics, logger: Logger) {
    this.#limits = limits;
    this.#metrics = metrics;
    this.#logger = logger;
  }

  /** Counts `socket` until it closes and returns true; or closes it at once and returns false. */
  admit(socket: Socket, labels: { readonly protocol: DeviceProtocol; readonly transport: TrackerTransport }): boolean {
    const key = socket.remoteAddress === undefined ? undefined : addressKey(socket.remoteAddress);
    const fromAddress = key === undefined ? 0 : this.#perAddress.get(key) ?? 0;
    const over = this.#open >= this.#limits.total ? 'total'
      : this.#limits.perAddress > 0 && fromAddress >= this.#limits.perAddress ? 'address' : undefined;
    if (over !== undefined) {
      this.#metrics.refused.inc({ ...labels, reason: over });
      this.#warn(over, key);
      socket.destroy();
      return false;
    }
    this.#open += 1;
    if (key !== undefined) this.#perAddress.set(key, fromAddress + 1);
    socket.once('close', () => {
      this.#open -= 1;
      if (key === undefined) return;
      const left = (this.#perAddress.get(key) ?? 1) - 1;
      if (left <= 0) this.#perAddress.delete(key);
      else this.#perAddress.set(key, left);
    });
    return true;
  }

  /** One line a minute at most: a flood of connections must not become a flood of log lines. */
  #warn(over: 'total' | 'address', address: string | undefined): void {
    const now = Date.now();
    if (now - this.#lastWarning < WARNING_INTERVAL_MS) return;
    this.#lastWarning = now;
    if (over === 'total') this.#logger.warn({ cap: this.#limits.total }, 'tracker connection refused: --tracker-connections are all open');
    else this.#logger.warn({ address, cap: this.#limits.perAddress }, 'tracker connection refused: too many open from one address (--tracker-connections-per-address)');
  }
}
