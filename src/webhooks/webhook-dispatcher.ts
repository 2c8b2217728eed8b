/**
 * Webhook delivery, at least once (D12). Each endpoint's queue here is fed from two sources: its
 * stream, for first attempts (dispatch/held-streams.ts), and its delivery rows due, for retries
 * and recoveries (dispatch/retry-claims.ts). The attempts share the slots (dispatch/send-slots.ts)
 * and their outcomes are written in batches (dispatch/delivery-outcomes.ts). So a fast receiver
 * costs one attempt-log row per event and a share of a position update, not a row written four
 * times.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { settleAttempt } from '../domain/webhook-retry.js';
import { findApplicationById } from '../store/applications-queries.js';
import { numberCommittedEvents } from '../store/events-queries.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { failPendingDeliveries } from '../store/webhooks/deliveries.js';
import { dispatcherNews } from '../store/webhooks/dispatcher-news.js';
import { disableWebhookEndpoint, findWebhookEndpoints } from '../store/webhooks/endpoints.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { DeliveryOutcomes } from './dispatch/delivery-outcomes.js';
import { waitingOf, type EndpointQueue, type QueuedSend } from './dispatch/endpoint-queue.js';
import { HeldStreams } from './dispatch/held-streams.js';
import { RetryClaims } from './dispatch/retry-claims.js';
import { SendSlots } from './dispatch/send-slots.js';
import { postSigned, signingSecrets } from './post-signed.js';
import type { WebhookDeps } from './webhook-deps.js';
import { attemptResultOf, type WebhookObserver } from './webhook-observer.js';

/** A queue stopped (410, disable) whose endpoint is still enabled this much later goes on: its disable failed. */
const STOP_UNWRITTEN_MS = 60_000;

export class WebhookDispatcher {
  readonly #deps: WebhookDeps;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #owner = `dispatcher-${randomUUID()}`;
  readonly #observer: WebhookObserver | undefined;
  readonly #outcomes: DeliveryOutcomes;
  readonly #slots: SendSlots;
  readonly #streams: HeldStreams;
  readonly #claims: RetryClaims;
  #closed = false;

  constructor(deps: WebhookDeps, logger: Logger, observer?: WebhookObserver) {
    this.#deps = deps;
    this.#logger = logger;
    this.#clock = deps.clock;
    this.#observer = observer;
    const isClosed = () => this.#closed;
    this.#outcomes = new DeliveryOutcomes({
      db: deps.store.db, capabilities: deps.store.capabilities, owner: this.#owner, disableAfterMs: deps.settings.disableAfterMs, logger,
      disable: (endpointId, reason, at) => this.#disable(endpointId, reason, at),
      streamLost: (endpointId, token) => this.#streams.writeFailed(endpointId, token),
    });
    this.#slots = new SendSlots({
      deps, logger, isClosed,
      send: (queue, item) => this.#send(queue, item),
      afterSend: (queue) => this.#topUp(queue),
      holdsStream: (endpointId) => this.#streams.has(endpointId),
      dropStream: (stream) => this.#streams.drop(stream),
      releaseClaims: (ids) => this.#claims.release(ids),
    });
    const parts = { deps, owner: this.#owner, logger, slots: this.#slots, outcomes: this.#outcomes, isClosed };
    this.#streams = new HeldStreams(parts);
    this.#claims = new RetryClaims(parts);
  }

  periodicWorker(): PeriodicWorker {
    return { name: 'webhook delivery', intervalMs: this.#deps.settings.pollMs, runOnce: () => this.runOnce() };
  }

  /**
   * One pass: number a batch of new events, reread the endpoints here, keep and take streams,
   * read them, claim the delivery rows due that fit; `more` when events were left unnumbered or
   * claims left rows due behind. One batch, not the whole backlog: streams start on the first
   * thousand while the next pass numbers the rest (20,000 events took half a second on
   * PostgreSQL). A stream read that filled its queue is not `more`: each attempt that ends reads
   * its queue's next events, and another pass at once would only reread the endpoints (a backlog
   * kept passes spinning hundreds a second).
   */
  async runOnce(): Promise<{ more: boolean }> {
    if (await this.#idle()) return { more: false };
    const unnumbered = await numberCommittedEvents(this.#deps.store, 1);
    await this.#refreshQueues();
    await this.#streams.hold();
    await this.#streams.readAll();
    const claimed = await this.#claims.claim();
    return { more: unnumbered || claimed.more };
  }

  /**
   * True when a pass would find nothing to do: nothing held here waits, runs, is stopped or is
   * due for renewal, and one look at the store (dispatcherNews) finds no event unnumbered or
   * numbered since the last pass, no stream to take (or take back) and no delivery due. Then the
   * pass is that one statement, as most passes of a process with no webhook traffic are. What it
   * skips only matters before something is sent, and the pass that finds something does all of
   * it first (rereading the queues' endpoints among it). Endpoints with more due than their
   * queues took need no check of their own: rows due and free are what the look finds.
   */
  async #idle(): Promise<boolean> {
    for (const queue of this.#slots.queues()) if (queue.running > 0 || queue.waiting.length > 0 || queue.stoppedAt !== undefined) return false;
    const now = this.#clock.now();
    if (this.#streams.needPass(now)) return false;
    // The streams this owner let go of are asked for as taking streams would take them back: one
    // taken by another instance since, or removed, is no reason for a whole pass.
    const news = await dispatcherNews(this.#deps.store.db, now, { owner: this.#owner, reclaim: this.#streams.toTakeBack() });
    return !news.unnumbered && !news.freeStream && !news.due && news.through === this.#streams.through;
  }

  /** Settles once every attempt under way has, those they started, and their outcomes are written (tests, shutdown). */
  async settle(): Promise<void> {
    const busy = () => this.#slots.sending.size > 0 || this.#claims.claimingMore !== undefined || this.#streams.reads.size > 0;
    while (busy()) await Promise.allSettled([...this.#slots.sending, ...this.#streams.reads, this.#claims.claimingMore]);
    await this.#outcomes.drain();
  }

  /** No attempt starts after this; the ones under way are left to end (`settle`). */
  close(): void {
    this.#closed = true;
  }

  /**
   * Stops for a shutdown: nothing more starts; what waits in queues is given back (due again at
   * once, for another instance or the next start); attempts under way get `graceMs` to end, and
   * every outcome known by then is written; then the streams are released, each at the position
   * its finished attempts reached. Later outcomes are dropped: those events are sent again.
   */
  async stop(graceMs: number): Promise<void> {
    this.#closed = true;
    // A claim or a read under way finishes first, so what it won is given back with the rest.
    await Promise.allSettled([this.#claims.claimingMore, this.#claims.claiming, ...this.#streams.reads]);
    await this.#claims.release([...this.#slots.queues()].flatMap((queue) => this.#slots.takeWaiting(queue)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settle(), new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); })]);
    clearTimeout(timer);
    await this.#outcomes.close();
    try {
      await this.#streams.release();
    } catch (error) {
      this.#logger.warn({ err: error }, 'webhook streams could not be released; their leases will lapse');
    }
  }

  /**
   * Rereads the endpoints that have queues here: a rotated secret signs from now on, and what
   * waits for an endpoint removed or disabled meanwhile (here or elsewhere), or for one whose
   * application was disabled, is not sent.
   */
  async #refreshQueues(): Promise<void> {
    if (this.#slots.size === 0) return;
    const { store, keyring } = this.#deps;
    const now = this.#clock.now();
    // Only the queues read: one a claim opens meanwhile is not in `rows`, and is not gone.
    const queues = [...this.#slots.entries()];
    const rows = await findWebhookEndpoints(store.db, queues.map(([id]) => id));
    const disabledApplications = await this.#disabledApplications([...rows.values()].map((row) => row.application_id));
    const dropped: string[] = [];
    const released: string[] = [];
    for (const [id, queue] of queues) {
      const found = rows.get(id);
      // An endpoint of a disabled application is treated as disabled here; its rows are kept.
      const row = found !== undefined && disabledApplications.has(found.application_id) ? { ...found, status: 'disabled' } : found;
      const stream = this.#streams.get(id);
      if (row?.status !== 'enabled') {
        this.#streams.forgetTakeBack(id);
        this.#claims.forget(id);
      } else if (stream !== undefined && row.stream_owner !== stream.token) {
        // Freed (verified anew) or taken meanwhile: another lease's, whatever this one had read.
        this.#streams.drop(stream, false);
      }
      if (row?.status === 'enabled') {
        if (queue.stoppedAt !== undefined && Number(row.enabled_at ?? 0) > queue.stoppedAt) queue.stoppedAt = undefined; // verified anew
        // Still enabled long after the stop: the disable was never written (it failed). Go on;
        // a receiver still answering 410 stops the queue again.
        if (queue.stoppedAt !== undefined && now - queue.stoppedAt > STOP_UNWRITTEN_MS) queue.stoppedAt = undefined;
        if (queue.stoppedAt === undefined) {
          queue.row = row;
          queue.secrets = signingSecrets(row, keyring, now);
          continue;
        }
      }
      // Removed, its deliveries are gone; disabled, they were failed: only a lease could be left.
      if (stream !== undefined && !stream.lost && row?.status !== 'enabled') {
        this.#streams.drop(stream, false);
        released.push(id);
      }
      dropped.push(...this.#slots.takeWaiting(queue));
      if (row?.status !== 'enabled' && queue.running === 0 && this.#slots.get(id) === queue) this.#slots.delete(id);
    }
    await this.#claims.release(dropped);
    if (released.length > 0) await this.#streams.release(released);
  }

  /**
   * Which of these applications are disabled (or gone), read as bearer tokens read them: through
   * the registry cache, so a pass costs no query for it while the registry is unchanged.
   */
  async #disabledApplications(ids: readonly string[]): Promise<Set<string>> {
    const { store } = this.#deps;
    const disabled = new Set<string>();
    for (const id of new Set(ids)) {
      const app = await cachedRegistryRead(store, `application:${id}`, () => findApplicationById(store.db, id));
      if (app?.enabled !== 1) disabled.add(id);
    }
    return disabled;
  }

  /** After an attempt ended: read or claim more before the queue runs dry, so a fast receiver never waits for a pass. */
  #topUp(queue: EndpointQueue): void {
    const endpointId = queue.row.id;
    const stream = this.#streams.get(endpointId);
    if (stream !== undefined) this.#streams.readIfLow(stream, queue);
    if (stream !== undefined && !this.#claims.isBacklogged(endpointId)) return;
    // Counted only here: a stream's queue holds up to 256 waiting, and this runs per attempt.
    if (waitingOf(queue, 'retry') < this.#deps.settings.perEndpointConcurrency * 2) this.#claims.claimMoreFor(endpointId);
  }

  /** One attempt: sign and post, then hand its outcome to the writer (a retry's settlement, or a first attempt's advance). */
  async #send(queue: EndpointQueue, item: QueuedSend): Promise<void> {
    const { row, secrets } = queue;
    const { sent, attempt } = await postSigned(this.#deps, row, item.event, {
      trigger: 'auto', secrets, position: item.position, lane: { key: row.id, concurrency: this.#deps.settings.perEndpointConcurrency },
    });
    if (sent.error === 'cancelled') {
      // Held by the transport, never sent, when its queue was emptied: no attempt. A stream's event
      // stays before the position; a claimed retry goes back.
      if (!this.#closed && queue.stoppedAt === undefined && this.#slots.get(row.id) === queue) {
        // Not emptied here: the transport stopped the lane on its own (a 410 whose answer never
        // reached this thread in time). Lift that, and take the stream again from its position,
        // so the event is read and sent again rather than holding the position back.
        this.#deps.transport.cancel?.(row.id);
        if (item.kind === 'stream' && !item.stream.lost) this.#streams.drop(item.stream);
      }
      if (item.kind === 'retry') await this.#claims.release([item.delivery.id]);
      return;
    }
    const attempts = item.kind === 'retry' ? item.delivery.attempts + 1 : 1;
    const at = this.#clock.now();
    this.#observer?.attempt(attemptResultOf(sent.status, sent.error), sent.durationMs / 1000);
    const { health, ...settled } = settleAttempt(sent, attempts, at, Math.random);
    if (health === 'gone') {
      // Gone means stop now, not after the outcome is written: nothing more starts for it here.
      queue.stoppedAt = at;
      void this.#claims.release(this.#slots.takeWaiting(queue));
    }
    const result = { status: settled.status, next_attempt_at: settled.nextAttemptAt, last_status: settled.lastStatus, last_error: settled.lastError };
    if (item.kind === 'retry') {
      this.#outcomes.add({ endpointId: row.id, attempt, health, at, settlement: { id: item.delivery.id, attempts, ...result } });
      return;
    }
    // A first attempt: a success needs nothing more than the attempt log; anything else, a row to go on from.
    const retry = health === 'success' ? undefined : {
      id: randomUUID(), endpoint_id: row.id, event_id: item.event.id, attempts, ...result,
      lease_owner: null, lease_until: null, created_at: at, updated_at: at,
    };
    item.stream.window.finish(item.position);
    this.#streams.advance(queue, item.stream, at, { attempt, health, retry });
  }

  async #disable(endpointId: string, reason: 'gone' | 'failing', at: number): Promise<void> {
    const queue = this.#slots.get(endpointId);
    if (queue) {
      queue.stoppedAt ??= at;
      this.#slots.takeWaiting(queue); // failed below with the rest of its pending deliveries
    }
    // Only an endpoint still enabled: an operator's disable (or a removal) meanwhile stands.
    if (!(await disableWebhookEndpoint(this.#deps.store.db, endpointId, reason, at))) return;
    await failPendingDeliveries(this.#deps.store.db, endpointId, `endpoint disabled (${reason})`, at);
    this.#logger.warn({ endpoint: endpointId, application: queue?.row.application_id, reason }, 'webhook endpoint disabled');
  }
}
