/**
 * The dispatcher's slots: at most `perEndpointConcurrency` attempts in flight to one endpoint and
 * `concurrency` in all, so a slow receiver holds its own slots and nobody else's. A transport that
 * holds posts (the threaded one) is handed `queuedPerLane` more of an endpoint's and starts each
 * when one on the wire ends; those it holds count against a cap of their own. Each endpoint's
 * sends wait in its queue, and the queues take turns at free slots.
 */
import type { Logger } from 'pino';
import type { WebhookEndpointRow } from '../../store/webhooks/endpoints.js';
import { signingSecrets } from '../post-signed.js';
import type { WebhookDeps } from '../webhook-deps.js';
import type { EndpointQueue, HeldStream, QueuedSend } from './endpoint-queue.js';

/**
 * What an attempt must still have of its lease after its deadline to start: room to write its
 * outcome. Well under MIN_LEASE_MARGIN_MS, so only a wait far beyond the claim's plan stops it.
 */
const SETTLE_ALLOWANCE_MS = 1_000;

export interface SendSlotsOptions {
  readonly deps: WebhookDeps;
  readonly logger: Logger;
  readonly isClosed: () => boolean;
  /** Makes one attempt; its slot is free again when it ends. */
  readonly send: (queue: EndpointQueue, item: QueuedSend) => Promise<void>;
  /** After an attempt ended and the queues had their turn, for a queue still open and not stopped. */
  readonly afterSend: (queue: EndpointQueue) => void;
  /** Whether the endpoint's stream is held here (its queue stays while it is). */
  readonly holdsStream: (endpointId: string) => boolean;
  /** Lets go of a stream whose lease could lapse before its next attempt's deadline. */
  readonly dropStream: (stream: HeldStream) => void;
  /** Gives back claimed deliveries that will not be sent from here. */
  readonly releaseClaims: (ids: readonly string[]) => Promise<void>;
}

export class SendSlots {
  readonly #options: SendSlotsOptions;
  readonly #deps: WebhookDeps;
  readonly #queues = new Map<string, EndpointQueue>();
  readonly #sending = new Set<Promise<void>>();
  /**
   * Attempts under way: those within their endpoint's concurrency (on the wire) and those beyond
   * it (held by the transport), each against its own cap, so queues filled by slow receivers
   * leave the wire to the others; and deliveries claimed in all (waiting or under way).
   */
  #onWire = 0;
  #held = 0;
  #claimed = 0;
  /** Stream events read here and not yet finished (waiting or under way). */
  #readAhead = 0;
  /** Attempts per endpoint handed to the transport beyond its concurrency, to wait there. */
  readonly queuedPerLane: number;

  constructor(options: SendSlotsOptions) {
    this.#options = options;
    this.#deps = options.deps;
    this.queuedPerLane = options.deps.transport.queuedPerLane ?? 0;
  }

  /** Deliveries claimed here and not yet finished. */
  get claimed(): number {
    return this.#claimed;
  }

  /** Stream events read here and not yet finished. */
  get readAhead(): number {
    return this.#readAhead;
  }

  /** Attempts under way. */
  get sending(): ReadonlySet<Promise<void>> {
    return this.#sending;
  }

  get size(): number {
    return this.#queues.size;
  }

  get(endpointId: string): EndpointQueue | undefined {
    return this.#queues.get(endpointId);
  }

  delete(endpointId: string): void {
    this.#queues.delete(endpointId);
  }

  entries(): IterableIterator<[string, EndpointQueue]> {
    return this.#queues.entries();
  }

  queues(): IterableIterator<EndpointQueue> {
    return this.#queues.values();
  }

  /** Deadlines an attempt may wait in the transport at most before it is on the wire. */
  waitRounds(): number {
    return Math.ceil(this.queuedPerLane / this.#deps.settings.perEndpointConcurrency);
  }

  /** The endpoint's queue, opened if it has none. */
  queueOf(row: WebhookEndpointRow, now: number): EndpointQueue {
    let queue = this.#queues.get(row.id);
    if (queue === undefined) {
      queue = { row, secrets: [], waiting: [], running: 0, stoppedAt: undefined };
      this.#queues.set(row.id, queue);
    }
    if (queue.secrets.length === 0) queue.secrets = signingSecrets(row, this.#deps.keyring, now);
    return queue;
  }

  /** Queues a claimed delivery before the stream's read-ahead: the claim's lease counts the retries ahead, not the stream. */
  queueRetry(queue: EndpointQueue, retry: Extract<QueuedSend, { kind: 'retry' }>): void {
    const firstStream = queue.waiting.findIndex((w) => w.kind === 'stream');
    queue.waiting.splice(firstStream < 0 ? queue.waiting.length : firstStream, 0, retry);
    this.#claimed += 1;
  }

  /** Queues events read from the endpoint's stream, after what waits. */
  queueStreamEvents(queue: EndpointQueue, sends: ReadonlyArray<Extract<QueuedSend, { kind: 'stream' }>>): void {
    for (const send of sends) queue.waiting.push(send);
    this.#readAhead += sends.length;
  }

  /** Drops what the stream's queue holds of it (its position never passed those: the next holder sends them). */
  dropStreamEvents(stream: HeldStream): void {
    const queue = this.#queues.get(stream.endpointId);
    if (queue === undefined) return;
    const kept = queue.waiting.filter((w) => w.kind !== 'stream' || w.stream !== stream);
    this.#readAhead -= queue.waiting.length - kept.length;
    queue.waiting.splice(0, queue.waiting.length, ...kept);
    this.forgetIfIdle(queue);
  }

  /** Takes a queue's waiting sends out (they will not be sent from here); answers the claimed delivery rows among them, to give back. */
  takeWaiting(queue: EndpointQueue): string[] {
    // What waits in the transport, not on the wire yet, comes back `cancelled` (the dispatcher's send).
    if (this.queuedPerLane > 0) this.#deps.transport.cancel?.(queue.row.id);
    const taken = queue.waiting.splice(0);
    for (const item of taken) this.#uncount(item);
    this.forgetIfIdle(queue);
    return taken.flatMap((w) => (w.kind === 'retry' ? [w.delivery.id] : []));
  }

  /** Forgets a queue with nothing waiting, nothing under way, no stream here and no stop to remember. */
  forgetIfIdle(queue: EndpointQueue): void {
    if (queue.running === 0 && queue.waiting.length === 0 && queue.stoppedAt === undefined && !this.#options.holdsStream(queue.row.id) && this.#queues.get(queue.row.id) === queue) {
      this.#queues.delete(queue.row.id);
    }
  }

  /** Gives every queue its turn at the free slots, starting after `last` (the queue that just freed one). */
  startAllReady(last?: EndpointQueue): void {
    const queues = [...this.#queues.values()];
    const from = last === undefined ? 0 : queues.indexOf(last) + 1;
    for (let i = 0; i < queues.length; i += 1) this.#startReady(queues[(from + i) % queues.length]!);
  }

  /**
   * Starts what the queue may send now. One whose lease could lapse before its attempt's deadline
   * (it waited longer than its claim planned: every slot was busy) is not sent from here: another
   * claim may already hold it. It is given back.
   */
  #startReady(queue: EndpointQueue): void {
    const { settings } = this.#deps;
    const expiring: string[] = [];
    const slots = settings.perEndpointConcurrency + this.queuedPerLane;
    const heldCap = Math.floor((settings.concurrency * this.queuedPerLane) / settings.perEndpointConcurrency);
    const mayStart = () => (queue.running < settings.perEndpointConcurrency ? this.#onWire < settings.concurrency : this.#held < heldCap);
    while (!this.#options.isClosed() && queue.stoppedAt === undefined && queue.running < slots && mayStart() && queue.waiting.length > 0) {
      const item = queue.waiting.shift()!;
      // Past the endpoint's concurrency it waits in the transport: the i-th waiting starts once
      // i + 1 posts on the wire have ended, a deadline for each round of them.
      const waiting = queue.running - settings.perEndpointConcurrency;
      const rounds = 1 + (waiting < 0 ? 0 : Math.floor(waiting / settings.perEndpointConcurrency) + 1);
      const deadline = this.#deps.clock.now() + rounds * settings.timeoutMs + SETTLE_ALLOWANCE_MS;
      if (item.kind === 'retry' && deadline > item.leaseUntil) {
        this.#claimed -= 1;
        expiring.push(item.delivery.id);
        continue;
      }
      if (item.kind === 'stream' && (item.stream.lost || deadline > item.stream.leaseUntil)) {
        // Not renewed in time (no pass ran): another instance may hold the stream by now.
        this.#readAhead -= 1;
        if (!item.stream.lost) this.#options.dropStream(item.stream);
        continue;
      }
      this.#start(queue, item);
    }
    if (expiring.length > 0) void this.#options.releaseClaims(expiring);
  }

  #start(queue: EndpointQueue, item: QueuedSend): void {
    const { settings } = this.#deps;
    if (queue.running < settings.perEndpointConcurrency) this.#onWire += 1;
    else this.#held += 1;
    queue.running += 1;
    const sending = this.#options.send(queue, item)
      .catch((error: unknown) => this.#options.logger.error({ err: error, endpoint: queue.row.id, event: item.event.id }, 'webhook attempt failed; it will be sent again'))
      .finally(() => {
        // Past the concurrency, one the transport held takes the freed place on the wire.
        if (queue.running > settings.perEndpointConcurrency) this.#held -= 1;
        else this.#onWire -= 1;
        this.#uncount(item);
        queue.running -= 1;
        this.#sending.delete(sending);
        // Round robin: the queue that freed a slot goes last, so a busy queue cannot starve the rest.
        this.startAllReady(queue);
        this.forgetIfIdle(queue);
        if (this.#queues.get(queue.row.id) !== queue || queue.stoppedAt !== undefined) return;
        this.#options.afterSend(queue);
      });
    this.#sending.add(sending);
  }

  /** Counts a send as no longer held here (sent, dropped or given back). */
  #uncount(item: QueuedSend): void {
    if (item.kind === 'retry') this.#claimed -= 1;
    else this.#readAhead -= 1;
  }
}
