/**
 * The endpoint streams this instance holds: first attempts. The holder of a stream's lease reads
 * the outbox after the stream's position (only the endpoint's company, types and application's
 * own commands) and queues each event as the endpoint's application sees it when it is read
 * (domain/event-visibility.ts). The position moves only past events whose first attempt has
 * ended (stream-window.ts): a success leaves a line in the attempt log, a failure a delivery row
 * for its retries, written in the same transaction as the move (delivery-outcomes.ts). A holder
 * that dies lets the lease lapse, and the next one sends again what it had under way, with the
 * same `webhook-id`.
 */
import type { Logger } from 'pino';
import { dependsOnDatapoints, eventAsSeenBy } from '../../domain/event-visibility.js';
import { datapointAllowances } from '../../events/datapoint-allowances.js';
import { numberedThrough, readFeedAfter } from '../../store/events-queries.js';
import { acquireStreams, releaseStreams, renewStreams } from '../../store/webhooks/streams.js';
import type { WebhookDeps } from '../webhook-deps.js';
import type { DeliveryOutcomes } from './delivery-outcomes.js';
import { MIN_LEASE_MARGIN_MS, waitingOf, type EndpointQueue, type HeldStream, type QueuedSend } from './endpoint-queue.js';
import type { DeliveryOutcome } from './outcome-batch.js';
import type { SendSlots } from './send-slots.js';
import type { DispatchPartOptions } from './dispatch-part-options.js';
import { StreamWindow } from './stream-window.js';

/**
 * A queue holds at most this many rounds of its endpoint's slots of stream events (read ahead:
 * nothing is written to hold them). It reads again when half of them are left, so each read
 * fetches about half this many rounds.
 */
const STREAM_AHEAD = 64;
/** Streams taken in one pass at most (the next pass takes more). */
const STREAMS_PER_PASS = 500;

export type HeldStreamsOptions = DispatchPartOptions;

export class HeldStreams {
  readonly #deps: WebhookDeps;
  readonly #owner: string;
  readonly #logger: Logger;
  readonly #slots: SendSlots;
  readonly #outcomes: DeliveryOutcomes;
  readonly #isClosed: () => boolean;
  readonly #held = new Map<string, HeldStream>();
  /** Endpoints whose stream this owner let go of without releasing it (taken again first). */
  readonly #toTakeBack = new Set<string>();
  /** Passes that took streams so far: the streams the n-th took hold the lease `owner:n`. */
  #takes = 0;
  readonly #reads = new Set<Promise<void>>();
  /**
   * The highest outbox position numbered when the last pass looked. Reads between passes go no
   * further: numbering on every read cost two queries each, and new events wait for a pass anyway.
   */
  #through = 0;

  constructor(options: HeldStreamsOptions) {
    this.#deps = options.deps;
    this.#owner = options.owner;
    this.#logger = options.logger;
    this.#slots = options.slots;
    this.#outcomes = options.outcomes;
    this.#isClosed = options.isClosed;
  }

  get through(): number {
    return this.#through;
  }

  /** Reads under way. */
  get reads(): ReadonlySet<Promise<void>> {
    return this.#reads;
  }

  get(endpointId: string): HeldStream | undefined {
    return this.#held.get(endpointId);
  }

  has(endpointId: string): boolean {
    return this.#held.has(endpointId);
  }

  /** The streams let go of here whose leases are still this owner's in the store: taken back first. */
  toTakeBack(): string[] {
    return [...this.#toTakeBack];
  }

  /** The endpoint is disabled or gone: its stream is not to be taken back. */
  forgetTakeBack(endpointId: string): void {
    this.#toTakeBack.delete(endpointId);
  }

  /**
   * How long a stream's lease lasts. Renewed once a quarter of it has gone, so a live holder keeps
   * it with an attempt's whole deadline, the deadlines it may wait in the transport, and half a
   * deadline and seconds more to spare (2 × timeout + 5 s without waits; 75 s with two rounds of
   * 15 s); a dead one's lapses this long after its last pass.
   */
  leaseMs(): number {
    return Math.ceil(((6 + 4 * this.#slots.waitRounds()) * this.#deps.settings.timeoutMs) / 3) + MIN_LEASE_MARGIN_MS;
  }

  /** A quarter of the lease gone: renewed long before the slots would stop sending for it. */
  renewalDue(stream: HeldStream, now: number): boolean {
    return stream.leaseUntil - now < (this.leaseMs() * 3) / 4;
  }

  /** A stream held here is due for renewal, or has events numbered that it has not read. */
  needPass(now: number): boolean {
    for (const stream of this.#held.values()) if (this.renewalDue(stream, now) || stream.window.read < this.#through) return true;
    return false;
  }

  /**
   * Renews the streams held here (those lost are let go of) and takes free ones. There is no cap
   * on how many one process holds: one it could not hold would get no first attempt at all.
   */
  async hold(): Promise<void> {
    const { db } = this.#deps.store;
    const now = this.#deps.clock.now();
    const leaseMs = this.leaseMs();
    const renewing = [...this.#held.values()].filter((s) => this.renewalDue(s, now));
    if (renewing.length > 0) {
      const kept = await renewStreams(db, renewing.map((s) => ({ id: s.endpointId, token: s.token })), now + leaseMs);
      for (const stream of renewing) {
        if (kept.has(stream.endpointId)) stream.leaseUntil = now + leaseMs;
        else this.drop(stream, false); // taken by another instance, disabled or removed
      }
    }
    if (this.#isClosed()) return;
    this.#takes += 1;
    const token = `${this.#owner}:${this.#takes}`;
    const rows = await acquireStreams(db, { owner: this.#owner, token, now, leaseUntil: now + leaseMs, limit: STREAMS_PER_PASS, reclaim: [...this.#toTakeBack] });
    for (const row of rows) {
      this.#toTakeBack.delete(row.id);
      // Freed in the store meanwhile (verified anew): the lease held here is over.
      const held = this.#held.get(row.id);
      if (held !== undefined) this.drop(held, false);
      const position = Number(row.stream_position);
      this.#held.set(row.id, { endpointId: row.id, token, leaseUntil: now + leaseMs, window: new StreamWindow(position), advanced: position, reading: undefined, lost: false });
      this.#slots.queueOf(row, now).row = row;
    }
  }

  /**
   * Lets go of a stream here: nothing more is read or started for it, and what it read and did
   * not start is dropped (the position never passed it: the next holder sends it). `takeBack`:
   * this owner may take the stream again at once (its lease is still ours in the store).
   */
  drop(stream: HeldStream, takeBack = true): void {
    stream.lost = true;
    if (this.#held.get(stream.endpointId) === stream) this.#held.delete(stream.endpointId);
    if (takeBack) this.#toTakeBack.add(stream.endpointId);
    this.#slots.dropStreamEvents(stream);
  }

  /** An outcome write with this lease's advance failed: its stream starts over from the position written last. */
  writeFailed(endpointId: string, token: string): void {
    const stream = this.#held.get(endpointId);
    if (stream?.token === token) this.drop(stream);
  }

  /** Reads every stream held here, up to the position numbered now. */
  async readAll(): Promise<void> {
    this.#through = await numberedThrough(this.#deps.store.db);
    await Promise.all([...this.#held.values()].map((stream) => this.read(stream)));
  }

  /**
   * Reads the next events of a stream into its queue, as many as it has room for, up to the
   * position the last pass saw numbered. One read at a time per stream.
   */
  read(stream: HeldStream): Promise<void> {
    if (stream.reading) return stream.reading;
    const reading = this.#readOnce(stream).finally(() => {
      stream.reading = undefined;
      this.#reads.delete(reading);
    });
    stream.reading = reading;
    this.#reads.add(reading);
    return reading;
  }

  /** Reads on when the queue is half empty, so a fast receiver never waits for a pass. */
  readIfLow(stream: HeldStream, queue: EndpointQueue): void {
    if (queue.waiting.length >= (this.#deps.settings.perEndpointConcurrency * STREAM_AHEAD) / 2) return;
    void this.read(stream).catch((error: unknown) => this.#logger.error({ err: error }, 'webhook stream could not be read; the next pass tries again'));
  }

  async #readOnce(stream: HeldStream): Promise<void> {
    const { settings, store } = this.#deps;
    const queue = this.#slots.get(stream.endpointId);
    if (this.#isClosed() || stream.lost || queue === undefined || queue.stoppedAt !== undefined) return;
    // Every stream may read a round of its slots whatever the others hold; beyond that they share a
    // budget, so many slow endpoints cannot hold every other stream back, nor memory grow unbounded.
    const held = queue.running + waitingOf(queue, 'stream');
    const shared = Math.max(settings.perEndpointConcurrency - held, settings.concurrency * STREAM_AHEAD - this.#slots.readAhead);
    const room = Math.min(settings.perEndpointConcurrency * STREAM_AHEAD - held, shared);
    if (room <= 0) return;
    const through = this.#through;
    const from = stream.window.read;
    if (from >= through) return;
    const { row } = queue;
    const types = JSON.parse(row.event_types) as string[];
    const rows = await readFeedAfter(store, {
      companyId: row.company_id, applicationId: row.application_id, types: types.includes('*') ? undefined : types, createdFrom: Number(row.enabled_at ?? 0),
    }, from, room, through);
    if (stream.lost || this.#isClosed()) return;
    const now = this.#deps.clock.now();
    const withDatapoints = rows.filter((e) => dependsOnDatapoints(e.type)).map((e) => e.vin);
    const allowances = withDatapoints.length === 0 ? undefined : await datapointAllowances(store, row.company_id, withDatapoints);
    if (stream.lost || this.#isClosed()) return;
    const sends: Array<Extract<QueuedSend, { kind: 'stream' }>> = [];
    for (const event of rows) {
      const seen = eventAsSeenBy(event, { companyId: row.company_id, applicationId: row.application_id }, allowances?.get(event.vin) ?? (() => false));
      if (seen !== undefined) sends.push({ kind: 'stream', stream, position: event.position, event: seen });
    }
    this.#slots.queueStreamEvents(queue, sends);
    const full = rows.length === room;
    stream.window.readThrough(full ? rows.at(-1)!.position : through, sends.map((s) => s.position));
    // Nothing of it to send: the position moves on without waiting for an attempt.
    if (sends.length === 0) this.advance(queue, stream, now);
    this.#slots.startAllReady();
    // A full read the endpoint may see none of starts no attempt, and only an attempt's end or
    // the next pass would read on: a long run of hidden events would crawl a read per pass.
    if (full && sends.length === 0) await this.#readOnce(stream);
  }

  /** Hands the stream's new position to the outcome writer when it moved (`attempt`: in the same outcome as an attempt's). */
  advance(queue: EndpointQueue, stream: HeldStream, at: number, attempt?: Omit<DeliveryOutcome, 'endpointId' | 'stream' | 'advance' | 'at'>): void {
    const position = stream.lost ? stream.advanced : stream.window.frontier();
    const advance = position > stream.advanced ? { token: stream.token, position } : undefined;
    if (advance !== undefined) stream.advanced = position;
    if (advance === undefined && attempt === undefined) return;
    this.#outcomes.add({ endpointId: queue.row.id, at, stream: stream.token, advance, attempt: undefined, health: undefined, ...attempt });
  }

  /** Lets go of this owner's streams in the store (all, or these endpoints'): free for any instance at once. */
  release(endpointIds?: readonly string[]): Promise<void> {
    return releaseStreams(this.#deps.store.db, this.#owner, endpointIds);
  }
}
