/**
 * How many tracker connections the gateway holds: in total over its TCP listeners (Teltonika
 * TCP and TLS, OsmAnd HTTP) and per remote address. Every connection costs a file descriptor of
 * the process the API answers from too; without a cap, connections that send nothing but are
 * not closed yet (10 s before a login, `--tracker-idle-timeout` after) could take every
 * descriptor and `/healthz` would fail to accept. A connection over a cap is closed before a byte
 * is read, counted in `tracker_connections_refused_total`, and logged at most once a minute.
 *
 * The caps count trackers only, so a third check looks at the process itself: a tracker accepted
 * when the process cannot open one more descriptor took the last one (API clients, the database
 * or files hold the rest) and is closed again, reason `descriptors`. That way trackers never
 * exhaust the process. What the kernel refuses before the service sees it cannot be counted: when
 * accept() itself fails with EMFILE, libuv (1.46, Node 20) closes its spare descriptor, accepts
 * and closes every pending connection, and tells Node nothing: no 'connection', no 'error' (seen
 * under `prlimit --nofile`: the clients connect and are closed at once). Node only emits 'error'
 * on a listening server where libuv reports an accept error (older libuv, Windows); `guard`
 * keeps that from crashing the process.
 */
import type { Server, Socket } from 'node:net';
import type { Logger } from 'pino';
import { addressKey } from '../domain/client-address.js';
import type { DeviceProtocol } from '../domain/trackers.js';
import type { GatewayMetrics, TrackerTransport } from './gateway-metrics.js';
import { canOpenDescriptor, type OpenFileLimit } from './open-file-limit.js';

export interface TrackerConnectionLimits {
  /** Connections open at once, all tracker listeners together. */
  readonly total: number;
  /** Per remote address (an IPv6 /64 counts as one); 0: no cap per address. */
  readonly perAddress: number;
}

/**
 * Descriptors always left to the process itself (standard streams, the event loop's, log and key
 * files, SQLite's three files, the listeners: 32 measured with SQLite, under 64 with
 * PostgreSQL's pool of 10 in it), whatever `--tracker-connections` says.
 */
export const MIN_RESERVED_DESCRIPTORS = 64;
/** What is assumed where the limit cannot be read (no /proc): a common default. */
const ASSUMED_OPEN_FILES = 1024;

export interface ConfiguredTrackerConnections {
  /** `--tracker-connections`; undefined: sized from the open-file limit. */
  readonly total: number | undefined;
  readonly perAddress: number;
  /**
   * Descriptors the rest of the process may hold beyond MIN_RESERVED_DESCRIPTORS: what one API
   * client address may open (`--connections-per-address`) and the database pool.
   */
  readonly keptForOthers: number;
}

/**
 * The caps for an open-file limit. By default every descriptor but those kept for the rest of the
 * process: at 20,000 (the limit where 19,900 trackers were carried, research fleet-capacity-3)
 * with the API's 256 per address and a pool of 10, 19,670 trackers; half the limit, as before,
 * turned 9,900 trackers away that the machine could carry. Never less than half the limit, so a
 * small limit still takes trackers. A configured total is honoured up to the limit less
 * MIN_RESERVED_DESCRIPTORS, and `lowered` says when it had to be lowered to that.
 */
export function trackerConnectionLimitsOf(
  configured: ConfiguredTrackerConnections, limit: OpenFileLimit | undefined,
): TrackerConnectionLimits & { readonly lowered: boolean } {
  const files = limit?.soft ?? ASSUMED_OPEN_FILES;
  const most = Math.max(1, files - MIN_RESERVED_DESCRIPTORS);
  const sized = Math.max(Math.floor(files / 2), files - MIN_RESERVED_DESCRIPTORS - configured.keptForOthers);
  const wanted = configured.total ?? Math.max(1, sized);
  return { total: Math.min(wanted, most), perAddress: configured.perAddress, lowered: wanted > most };
}

const WARNING_INTERVAL_MS = 60_000;

export type RefusalReason = 'total' | 'address' | 'descriptors';

const WARNINGS: { readonly [R in RefusalReason]: string } = {
  total: 'tracker connection refused: --tracker-connections are all open',
  address: 'tracker connection refused: too many open from one address (--tracker-connections-per-address)',
  descriptors: 'tracker connection refused: the process has no file descriptors left (open-file limit); raise LimitNOFILE or --ulimit nofile, or lower --tracker-connections',
};

export class TrackerConnectionCap {
  readonly #limits: TrackerConnectionLimits;
  readonly #metrics: GatewayMetrics;
  readonly #logger: Logger;
  readonly #perAddress = new Map<string, number>();
  readonly #lastWarning = new Map<RefusalReason, number>();
  #open = 0;

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
      : this.#limits.perAddress > 0 && fromAddress >= this.#limits.perAddress ? 'address'
        : canOpenDescriptor() ? undefined : 'descriptors';
    if (over !== undefined) {
      this.#metrics.refused.inc({ ...labels, reason: over });
      this.#warn(over, over === 'total' ? { cap: this.#limits.total }
        : over === 'address' ? { address: key, cap: this.#limits.perAddress } : { trackerConnectionsOpen: this.#open });
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

  /**
   * Keeps a listening server's errors from crashing the process (an 'error' without a listener
   * is thrown): an accept that failed for lack of descriptors is logged as a refusal is, any other
   * error at warn. Nothing is counted: no connection was taken, it waits in the kernel's queue.
   */
  guard(server: Server, listener: string): void {
    server.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EMFILE' || error.code === 'ENFILE') this.#warn('descriptors', { listener, syscall: error.syscall });
      else this.#logger.warn({ err: error, listener }, 'tracker listener error');
    });
  }

  /** One line a minute per reason at most: a flood of connections must not become a flood of log lines. */
  #warn(reason: RefusalReason, fields: { readonly [field: string]: unknown }): void {
    const now = Date.now();
    if (now - (this.#lastWarning.get(reason) ?? 0) < WARNING_INTERVAL_MS) return;
    this.#lastWarning.set(reason, now);
    this.#logger.warn(fields, WARNINGS[reason]);
  }
}
