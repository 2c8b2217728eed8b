/**
 * Webhook delivery, at least once (D12). Two sources feed each endpoint's lane here:
 *
 * 1. Its stream: first attempts. The instance holding the stream's lease reads the outbox after
 *    the stream's position (only the endpoint's company, types and application's own commands)
 *    and sends each event the endpoint's application may see. The position moves only past
 *    events whose first attempt has ended: a success leaves a line in the attempt log, a failure
 *    a delivery row for its retries, written in the same transaction as the move
 *    (delivery-outcomes.ts). A holder that dies lets the lease lapse, and the next one sends
 *    again what it had under way, with the same `webhook-id`.
 * 2. Delivery rows due: retries and recoveries, claimed in batches per endpoint with one
 *    conditional update (one instance wins each row); a lapsed lease makes a row due again.
 *
 * So a fast receiver costs one attempt-log row per event and a share of a position update,
 * not a row written four times. At most `perEndpointConcurrency` attempts are in flight to one
 * endpoint and `concurrency` in all, so a slow receiver holds its own slots and nobody else's
 * (a transport that holds posts, the threaded one, is handed `queuedPerLane` more of an
 * endpoint's and starts each when one on the wire ends; `concurrency` counts those it holds too);
 * a lane holds at most LANE_ROUNDS times its endpoint's slots of claimed rows (their leases
 * last as long as the lane could take to send them all) and STREAM_AHEAD times of its stream.
 * The body is the event as the endpoint's application sees it when it is read
 * (domain/event-visibility.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ServiceEvent } from '@telematics/contract';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { dependsOnDatapoints, eventAsSeenBy } from '../domain/event-visibility.js';
import { settleAttempt } from '../domain/webhook-retry.js';
import { findEventsByIds, numberCommittedEvents, numberedThrough, readFeedAfter } from '../store/events-queries.js';
import { claimDeliveries, dueDeliveries, failPendingDeliveries, releaseDeliveries, type DueDelivery } from '../store/webhooks/deliveries.js';
import { dispatcherNews } from '../store/webhooks/dispatcher-news.js';
import { disableWebhookEndpoint, findWebhookEndpoints, type WebhookEndpointRow } from '../store/webhooks/endpoints.js';
import { acquireStreams, releaseStreams, renewStreams } from '../store/webhooks/streams.js';
import { findApplicationById } from '../store/applications-queries.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { datapointAllowances } from '../events/datapoint-allowances.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { DeliveryOutcomes, type DeliveryOutcome } from './delivery-outcomes.js';
import { StreamWindow } from './stream-window.js';
import { postSigned, signingSecrets } from './post-signed.js';
import type { WebhookDeps } from './webhook-deps.js';

/** A lane holds at most this many rounds of its endpoint's slots of claimed delivery rows. */
const LANE_ROUNDS = 4;
/**
 * …and this many rounds of its stream's events (read ahead: nothing is written to hold them). A
 * lane reads again when half of them are left, so each read fetches about half this many rounds.
 */
const STREAM_AHEAD = 64;
/** Streams taken in one pass at most (the next pass takes more). */
const STREAMS_PER_PASS = 500;

/** An attempt's result as metrics count it. */
export type AttemptResult = 'success' | 'http_error' | 'gone' | 'timeout' | 'connection' | 'tls' | 'dns' | 'refused';

/** Who is told about each attempt (the metrics adapter). */
export interface WebhookObserver {
  attempt(result: AttemptResult, seconds: number): void;
}
/**
 * A lease outlives the lane's worst case (each attempt ahead taking the whole deadline) by at
 * least this much, and by the deadline again when that is longer: only a dead holder lets it
 * lapse, not a slow settle.
 */
const MIN_LEASE_MARGIN_MS = 5_000;
/**
 * What an attempt must still have of its lease after its deadline to start: room to write its
 * outcome. Well under MIN_LEASE_MARGIN_MS, so only a wait far beyond the claim's plan stops it.
 */
const SETTLE_ALLOWANCE_MS = 1_000;
/** A lane stopped (410, disable) whose endpoint is still enabled this much later goes on: its disable failed. */
const STOP_UNWRITTEN_MS = 60_000;

/** This instance's hold on an endpoint's stream: one lease, from acquiring it until losing or releasing it. */
interface Tenure {
  readonly endpointId: string;
  readonly token: string;
  leaseUntil: number;
  readonly window: StreamWindow;
  /** The position the last advance handed to the outcome writer. */
  advanced: number;
  reading: Promise<void> | undefined;
  lost: boolean;
}

/** Something to send: a claimed delivery row (a retry), or an event of the endpoint's stream. */
type Waiting =
  | { readonly kind: 'retry'; readonly delivery: DueDelivery; readonly position: number; readonly event: ServiceEvent; readonly leaseUntil: number }
  | { readonly kind: 'stream'; readonly tenure: Tenure; readonly position: number; readonly event: ServiceEvent };

/** One endpoint's work waiting for a slot, and the attempts under way. */
interface Lane {
  row: WebhookEndpointRow;
  secrets: readonly string[];
  readonly waiting: Waiting[];
  running: number;
  /**
   * When the endpoint answered 410 or was disabled here: nothing more starts or is claimed for it
   * until it is enabled again after that instant (verified anew). The lane stays, so a claim
   * cannot slip in before the disable is written.
   */
  stoppedAt: number | undefined;
}

export class WebhookDispatcher {
  readonly #deps: WebhookDeps;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #owner = `dispatcher-${randomUUID()}`;
  readonly #lanes = new Map<string, Lane>();
  readonly #streams = new Map<string, Tenure>();
  /** Endpoints whose stream this owner let go of without releasing it (taken again first). */
  readonly #abandoned = new Set<string>();
  #tenures = 0;
  /** Endpoints with more delivery rows due than their lanes took: refilled as slots free up. */
  readonly #moreDue = new Set<string>();
  readonly #reads = new Set<Promise<void>>();
  readonly #attempts = new Set<Promise<void>>();
  readonly #outcomes: DeliveryOutcomes;
  /**
   * Attempts under way: those within their endpoint's concurrency (on the wire) and those beyond
   * it (held by the transport), each against its own cap, so lanes filled by slow receivers
   * leave the wire to the others as before; and deliveries claimed in all (waiting or under way).
   */
  #onWire = 0;
  #held = 0;
  #claimed = 0;
  /** Stream events read here and not yet finished (waiting or under way). */
  #readAhead = 0;
  /**
   * The highest outbox position numbered when the last pass looked. Reads between passes go no
   * further: numbering on every read cost two queries each, and new events wait for a pass anyway.
   */
  #through = 0;
  #pumping: Promise<void> | undefined;
  #dispatching: Promise<void> | undefined;
  #closed = false;

  readonly #observer: WebhookObserver | undefined;
  /** Attempts per endpoint handed to the transport beyond its concurrency, to wait there. */
  readonly #queuedPerLane: number;

  constructor(deps: WebhookDeps, logger: Logger, observer?: WebhookObserver) {
    this.#deps = deps;
    this.#logger = logger;
    this.#clock = deps.clock;
    this.#observer = observer;
    this.#queuedPerLane = deps.transport.queuedPerLane ?? 0;
    this.#outcomes = new DeliveryOutcomes({
      db: deps.store.db, capabilities: deps.store.capabilities, owner: this.#owner, disableAfterMs: deps.settings.disableAfterMs, logger,
      disable: (endpointId, reason, at) => this.#disable(endpointId, reason, at),
      streamLost: (endpointId, token) => {
        const tenure = this.#streams.get(endpointId);
        if (tenure?.token === token) this.#abandon(tenure);
      },
    });
  }

  /**
   * How long a stream's lease lasts. Renewed once a quarter of it has gone, so a live holder keeps
   * it with an attempt's whole deadline, the deadlines it may wait in the transport, and half a
   * deadline and seconds more to spare (2 × timeout + 5 s without waits; 75 s with two rounds of
   * 15 s); a dead one's lapses this long after its last pass.
   */
  #streamLeaseMs(): number {
    return Math.ceil(((6 + 4 * this.#waitRounds()) * this.#deps.settings.timeoutMs) / 3) + MIN_LEASE_MARGIN_MS;
  }

  /** A quarter of the lease gone: renewed long before #pump would stop sending for it. */
  #renewalDue(tenure: Tenure, now: number): boolean {
    return tenure.leaseUntil - now < (this.#streamLeaseMs() * 3) / 4;
  }

  /** Deadlines an attempt may wait in the transport at most before it is on the wire. */
  #waitRounds(): number {
    return Math.ceil(this.#queuedPerLane / this.#deps.settings.perEndpointConcurrency);
  }

  periodicWorker(): PeriodicWorker {
    return { name: 'webhook delivery', intervalMs: this.#deps.settings.pollMs, runOnce: () => this.runOnce() };
  }

  /**
   * One pass: number a batch of new events, reread the endpoints here, keep and take streams,
   * read them, claim the delivery rows due that fit; `more` when events were left unnumbered or
   * claims left rows due behind. One batch, not the whole backlog: streams start on the first
   * thousand while the next pass numbers the rest (20,000 events took half a second on
   * PostgreSQL). A stream read that filled its lane is not `more`: each attempt that ends reads
   * its lane's next events, and another pass at once would only reread the endpoints (a backlog
   * kept passes spinning hundreds a second).
   */
  async runOnce(): Promise<{ more: boolean }> {
    const { store } = this.#deps;
    if (await this.#idle()) return { more: false };
    const unnumbered = await numberCommittedEvents(store, 1);
    await this.#refreshLanes();
    await this.#holdStreams();
    this.#through = await numberedThrough(store.db);
    await Promise.all([...this.#streams.values()].map((tenure) => this.#readStream(tenure)));
    const claimed = await this.dispatchDue();
    return { more: unnumbered || claimed.more };
  }

  /**
   * True when a pass would find nothing to do: nothing held here waits, runs, is stopped or is
   * due for renewal, and one look at the store (dispatcherNews) finds no event unnumbered or
   * numbered since the last pass, no stream to take (or take back) and no delivery due. Then the
   * pass is that one statement: most passes of a process with no webhook traffic (issue 22). What
   * it skips only matters before something is sent, and the pass that finds something does all of
   * it first (rereading the lanes' endpoints among it). Endpoints marked as having more due
   * (`#moreDue`) need no check of their own: rows due and free are what the look finds, and a
   * mark can outlive its lane.
   */
  async #idle(): Promise<boolean> {
    for (const lane of this.#lanes.values()) if (lane.running > 0 || lane.waiting.length > 0 || lane.stoppedAt !== undefined) return false;
    const now = this.#clock.now();
    for (const tenure of this.#streams.values()) if (this.#renewalDue(tenure, now) || tenure.window.read < this.#through) return false;
    // The streams this owner let go of are asked for as acquireStreams would take them back: one
    // taken by another instance since, or removed, is no reason for a whole pass.
    const news = await dispatcherNews(this.#deps.store.db, now, { owner: this.#owner, reclaim: [...this.#abandoned] });
    return !news.unnumbered && !news.freeStream && !news.due && news.through === this.#through;
  }

  /** Settles once every attempt under way has, those they started, and their outcomes are written (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.#attempts.size > 0 || this.#pumping || this.#reads.size > 0) await Promise.allSettled([...this.#attempts, ...this.#reads, this.#pumping]);
    await this.#outcomes.drain();
  }

  /** No attempt starts after this; the ones under way are left to end (`settle`). */
  close(): void {
    this.#closed = true;
  }

  /**
   * Stops for a shutdown: nothing more starts; what waits in lanes is given back (due again at
   * once, for another instance or the next start); attempts under way get `graceMs` to end, and
   * every outcome known by then is written; then the streams are released, each at the position
   * its finished attempts reached. Later outcomes are dropped: those events are sent again.
   */
  async stop(graceMs: number): Promise<void> {
    this.#closed = true;
    // A claim or a read under way finishes first, so what it won is given back with the rest.
    await Promise.allSettled([this.#pumping, this.#dispatching, ...this.#reads]);
    await this.#giveBack([...this.#lanes.values()].flatMap((lane) => this.#emptyLane(lane)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settle(), new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); })]);
    clearTimeout(timer);
    await this.#outcomes.close();
    try {
      await releaseStreams(this.#deps.store.db, this.#owner);
    } catch (error) {
      this.#logger.warn({ err: error }, 'webhook streams could not be released; their leases will lapse');
    }
  }

  /**
   * Renews the streams held here (those lost are let go of) and takes free ones. There is no cap
   * on how many one process holds: one it could not hold would get no first attempt at all.
   */
  async #holdStreams(): Promise<void> {
    const { db } = this.#deps.store;
    const now = this.#clock.now();
    const leaseMs = this.#streamLeaseMs();
    const renewing = [...this.#streams.values()].filter((t) => this.#renewalDue(t, now));
    if (renewing.length > 0) {
      const kept = await renewStreams(db, renewing.map((t) => ({ id: t.endpointId, token: t.token })), now + leaseMs);
      for (const tenure of renewing) {
        if (kept.has(tenure.endpointId)) tenure.leaseUntil = now + leaseMs;
        else this.#abandon(tenure, false); // taken by another instance, disabled or removed
      }
    }
    if (this.#closed) return;
    this.#tenures += 1;
    const token = `${this.#owner}:${this.#tenures}`;
    const rows = await acquireStreams(db, { owner: this.#owner, token, now, leaseUntil: now + leaseMs, limit: STREAMS_PER_PASS, reclaim: [...this.#abandoned] });
    for (const row of rows) {
      this.#abandoned.delete(row.id);
      // Freed in the store meanwhile (verified anew): the tenure held here is over.
      const held = this.#streams.get(row.id);
      if (held !== undefined) this.#abandon(held, false);
      const position = Number(row.stream_position);
      this.#streams.set(row.id, { endpointId: row.id, token, leaseUntil: now + leaseMs, window: new StreamWindow(position), advanced: position, reading: undefined, lost: false });
      const lane = this.#laneOf(row, now);
      lane.row = row;
    }
  }

  /** The endpoint's lane, opened if it has none. */
  #laneOf(row: WebhookEndpointRow, now: number): Lane {
    let lane = this.#lanes.get(row.id);
    if (lane === undefined) {
      lane = { row, secrets: [], waiting: [], running: 0, stoppedAt: undefined };
      this.#lanes.set(row.id, lane);
    }
    if (lane.secrets.length === 0) lane.secrets = signingSecrets(row, this.#deps.keyring, now);
    return lane;
  }

  /**
   * Lets go of a tenure here: nothing more is read or started for it, and what it read and did
   * not start is dropped (the position never passed it: the next holder sends it). `reclaim`:
   * this owner may take the stream again at once (its lease is still ours in the store).
   */
  #abandon(tenure: Tenure, reclaim = true): void {
    tenure.lost = true;
    if (this.#streams.get(tenure.endpointId) === tenure) this.#streams.delete(tenure.endpointId);
    if (reclaim) this.#abandoned.add(tenure.endpointId);
    const lane = this.#lanes.get(tenure.endpointId);
    if (lane === undefined) return;
    const kept = lane.waiting.filter((w) => w.kind !== 'stream' || w.tenure !== tenure);
    this.#readAhead -= lane.waiting.length - kept.length;
    lane.waiting.splice(0, lane.waiting.length, ...kept);
    this.#forgetIfIdle(lane);
  }

  /** Counts an item as no longer held here (sent, dropped or given back). */
  #letGo(item: Waiting): void {
    if (item.kind === 'retry') this.#claimed -= 1;
    else this.#readAhead -= 1;
  }

  /** Forgets a lane with nothing waiting, nothing under way, no stream here and no stop to remember. */
  #forgetIfIdle(lane: Lane): void {
    if (lane.running === 0 && lane.waiting.length === 0 && lane.stoppedAt === undefined && !this.#streams.has(lane.row.id) && this.#lanes.get(lane.row.id) === lane) {
      this.#lanes.delete(lane.row.id);
    }
  }

  /**
   * Reads the next events of a stream into its lane, as many as it has room for, up to the
   * position the last pass saw numbered. One read at a time per stream.
   */
  #readStream(tenure: Tenure): Promise<void> {
    if (tenure.reading) return tenure.reading;
    const reading = this.#readStreamOnce(tenure).finally(() => {
      tenure.reading = undefined;
      this.#reads.delete(reading);
    });
    tenure.reading = reading;
    this.#reads.add(reading);
    return reading;
  }

  async #readStreamOnce(tenure: Tenure): Promise<void> {
    const { settings, store } = this.#deps;
    const lane = this.#lanes.get(tenure.endpointId);
    if (this.#closed || tenure.lost || lane === undefined || lane.stoppedAt !== undefined) return;
    // Every stream may read a round of its slots whatever the others hold; beyond that they share a
    // budget, so many slow endpoints cannot hold every other stream back, nor memory grow unbounded.
    const held = lane.waiting.reduce((n, w) => n + (w.kind === 'stream' ? 1 : 0), lane.running);
    const shared = Math.max(settings.perEndpointConcurrency - held, settings.concurrency * STREAM_AHEAD - this.#readAhead);
    const room = Math.min(settings.perEndpointConcurrency * STREAM_AHEAD - held, shared);
    if (room <= 0) return;
    const through = this.#through;
    const from = tenure.window.read;
    if (from >= through) return;
    const { row } = lane;
    const types = JSON.parse(row.event_types) as string[];
    const rows = await readFeedAfter(store, {
      companyId: row.company_id, applicationId: row.application_id, types: types.includes('*') ? undefined : types, createdFrom: Number(row.enabled_at ?? 0),
    }, from, room, through);
    if (tenure.lost || this.#closed) return;
    const now = this.#clock.now();
    const withDatapoints = rows.filter((e) => dependsOnDatapoints(e.type)).map((e) => e.vin);
    const allowances = withDatapoints.length === 0 ? undefined : await datapointAllowances(store, row.company_id, withDatapoints);
    if (tenure.lost || this.#closed) return;
    const kept: number[] = [];
    for (const event of rows) {
      const seen = eventAsSeenBy(event, { companyId: row.company_id, applicationId: row.application_id }, allowances?.get(event.vin) ?? (() => false));
      if (seen === undefined) continue;
      kept.push(event.position);
      lane.waiting.push({ kind: 'stream', tenure, position: event.position, event: seen });
    }
    this.#readAhead += kept.length;
    const full = rows.length === room;
    tenure.window.readThrough(full ? rows.at(-1)!.position : through, kept);
    // Nothing of it to send: the position moves on without waiting for an attempt.
    if (kept.length === 0) this.#advance(lane, tenure, now);
    this.#pumpAll();
    // A full read the endpoint may see none of starts no attempt, and only an attempt's end or
    // the next pass would read on: a long run of hidden events would crawl a read per pass.
    if (full && kept.length === 0) await this.#readStreamOnce(tenure);
  }

  /** Hands the stream's new position to the outcome writer when it moved (`with`: in the same outcome as an attempt's). */
  #advance(lane: Lane, tenure: Tenure, at: number, with_?: Omit<DeliveryOutcome, 'endpointId' | 'stream' | 'advance' | 'at'>): void {
    const position = tenure.lost ? tenure.advanced : tenure.window.frontier();
    const advance = position > tenure.advanced ? { token: tenure.token, position } : undefined;
    if (advance !== undefined) tenure.advanced = position;
    if (advance === undefined && with_ === undefined) return;
    this.#outcomes.add({ endpointId: lane.row.id, at, stream: tenure.token, advance, attempt: undefined, health: undefined, ...with_ });
  }

  /**
   * Rereads the endpoints that have lanes here: a rotated secret signs from now on, and what
   * waits for an endpoint removed or disabled meanwhile (here or elsewhere), or for one whose
   * application was disabled, is not sent.
   */
  async #refreshLanes(): Promise<void> {
    if (this.#lanes.size === 0) return;
    const { store, keyring } = this.#deps;
    const now = this.#clock.now();
    // Only the lanes read: one a refill opens meanwhile is not in `rows`, and is not gone.
    const lanes = [...this.#lanes];
    const rows = await findWebhookEndpoints(store.db, lanes.map(([id]) => id));
    const disabledApplications = await this.#disabledApplications([...rows.values()].map((row) => row.application_id));
    const dropped: string[] = [];
    const released: string[] = [];
    for (const [id, lane] of lanes) {
      const found = rows.get(id);
      // An endpoint of a disabled application is treated as disabled here; its rows are kept.
      const row = found !== undefined && disabledApplications.has(found.application_id) ? { ...found, status: 'disabled' } : found;
      const tenure = this.#streams.get(id);
      if (row?.status !== 'enabled') {
        this.#abandoned.delete(id);
        this.#moreDue.delete(id);
      } else if (tenure !== undefined && row.stream_owner !== tenure.token) {
        // Freed (verified anew) or taken meanwhile: another tenure's, whatever this one had read.
        this.#abandon(tenure, false);
      }
      if (row?.status === 'enabled') {
        if (lane.stoppedAt !== undefined && Number(row.enabled_at ?? 0) > lane.stoppedAt) lane.stoppedAt = undefined; // verified anew
        // Still enabled long after the stop: the disable was never written (it failed). Go on;
        // a receiver still answering 410 stops the lane again.
        if (lane.stoppedAt !== undefined && now - lane.stoppedAt > STOP_UNWRITTEN_MS) lane.stoppedAt = undefined;
        if (lane.stoppedAt === undefined) {
          lane.row = row;
          lane.secrets = signingSecrets(row, keyring, now);
          continue;
        }
      }
      // Removed, its deliveries are gone; disabled, they were failed: only a lease could be left.
      if (tenure !== undefined && !tenure.lost && row?.status !== 'enabled') {
        this.#abandon(tenure, false);
        released.push(id);
      }
      dropped.push(...this.#emptyLane(lane));
      if (row?.status !== 'enabled' && lane.running === 0 && this.#lanes.get(id) === lane) this.#lanes.delete(id);
    }
    await this.#giveBack(dropped);
    if (released.length > 0) await releaseStreams(store.db, this.#owner, released);
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

  /** Takes a lane's waiting work out (it will not be sent from here); answers the claimed delivery rows among it, to give back. */
  #emptyLane(lane: Lane): string[] {
    // What waits in the transport, not on the wire yet, comes back `cancelled` (#attempt).
    if (this.#queuedPerLane > 0) this.#deps.transport.cancel?.(lane.row.id);
    const taken = lane.waiting.splice(0);
    for (const item of taken) this.#letGo(item);
    this.#forgetIfIdle(lane);
    return taken.flatMap((w) => (w.kind === 'retry' ? [w.delivery.id] : []));
  }

  /** Releases leases this process holds but will not use: due again at once. */
  async #giveBack(ids: readonly string[]): Promise<void> {
    try {
      await releaseDeliveries(this.#deps.store.db, ids, this.#owner, this.#clock.now());
    } catch (error) {
      this.#logger.warn({ err: error, deliveries: ids.length }, 'webhook deliveries could not be given back; their leases will lapse');
    }
  }

  /**
   * Claims due deliveries into lanes within the caps and starts what fits: every endpoint's, or
   * one lane's (`endpointId`) when it runs low. One run at a time, so the caps hold.
   */
  async dispatchDue(endpointId?: string): Promise<{ more: boolean }> {
    while (this.#dispatching) await this.#dispatching;
    const run = this.#dispatchOnce(endpointId);
    this.#dispatching = run.then(() => undefined, () => undefined);
    try {
      return await run;
    } finally {
      this.#dispatching = undefined;
    }
  }

  async #dispatchOnce(endpointId: string | undefined): Promise<{ more: boolean }> {
    const { settings, store, keyring } = this.#deps;
    const laneCap = settings.perEndpointConcurrency * LANE_ROUNDS;
    // Claimed rows only: a stream's read-ahead does not keep the endpoint's retries out.
    const held = (id: string) => {
      const lane = this.#lanes.get(id);
      return lane ? lane.waiting.reduce((n, w) => n + (w.kind === 'retry' ? 1 : 0), lane.running) : 0;
    };
    const room = Math.min(settings.concurrency * LANE_ROUNDS - this.#claimed, endpointId === undefined ? Infinity : laneCap - held(endpointId));
    if (room <= 0 || this.#closed) return { more: false };
    const now = this.#clock.now();
    const full = [...this.#lanes].filter(([id, lane]) => lane.stoppedAt !== undefined || held(id) >= laneCap).map(([id]) => id);
    if (endpointId !== undefined && this.#lanes.get(endpointId)?.stoppedAt !== undefined) return { more: false };
    const due = await dueDeliveries(store.db, now, room, endpointId === undefined ? { busyEndpoints: full } : { endpointId });
    const byEndpoint = new Map<string, DueDelivery[]>();
    if (endpointId !== undefined) {
      if (due.length === room) this.#moreDue.add(endpointId);
      else this.#moreDue.delete(endpointId);
    }
    for (const delivery of due) {
      const group = byEndpoint.get(delivery.endpointId) ?? [];
      if (group.length + held(delivery.endpointId) >= laneCap) {
        this.#moreDue.add(delivery.endpointId);
        continue;
      }
      group.push(delivery);
      byEndpoint.set(delivery.endpointId, group);
    }
    if (byEndpoint.size === 0) return { more: false };
    const rows = await findWebhookEndpoints(store.db, [...byEndpoint.keys()]);
    const won: Array<{ delivery: DueDelivery; row: WebhookEndpointRow | undefined; leaseUntil: number }> = [];
    for (const [endpointId, group] of byEndpoint) {
      const row = rows.get(endpointId);
      const rounds = Math.ceil((held(endpointId) + group.length) / Math.min(settings.perEndpointConcurrency, settings.concurrency)) + this.#waitRounds();
      const leaseUntil = now + rounds * settings.timeoutMs + Math.max(MIN_LEASE_MARGIN_MS, settings.timeoutMs);
      const claimed = await claimDeliveries(store.db, group.map((d) => d.id), this.#owner, now, leaseUntil);
      for (const delivery of group) if (claimed.has(delivery.id)) won.push({ delivery, row: row?.status === 'enabled' ? row : undefined, leaseUntil });
    }
    if (this.#closed) {
      // Stopped while claiming: what was won goes back at once.
      await this.#giveBack(won.map((w) => w.delivery.id));
      return { more: false };
    }
    const events = await this.#eventsAsSeen(won.filter((w) => w.row !== undefined) as Array<{ delivery: DueDelivery; row: WebhookEndpointRow }>);
    for (const { delivery, row, leaseUntil } of won) {
      if (row === undefined) {
        this.#settleUnsent(delivery, 'failed', 'endpoint not enabled', now);
        continue;
      }
      const seen = events.get(delivery.id);
      if (seen === undefined) {
        // Dropped by retention, or no longer the application's to see.
        this.#settleUnsent(delivery, 'dropped', 'event no longer available', now);
        continue;
      }
      // Before the stream's read-ahead: the claim's lease counts the retries ahead, not the stream.
      const { waiting } = this.#laneOf(row, now);
      const firstStream = waiting.findIndex((w) => w.kind === 'stream');
      waiting.splice(firstStream < 0 ? waiting.length : firstStream, 0, { kind: 'retry', delivery, position: seen.position, event: seen.event, leaseUntil });
      this.#claimed += 1;
    }
    this.#pumpAll();
    return { more: due.length === room && won.length > 0 };
  }

  /** Each claimed delivery's event as its endpoint's application sees it now, and its position; absent when it sees nothing. */
  async #eventsAsSeen(claimed: ReadonlyArray<{ delivery: DueDelivery; row: WebhookEndpointRow }>): Promise<Map<string, { event: ServiceEvent; position: number }>> {
    const { store } = this.#deps;
    const stored = await findEventsByIds(store.db, [...new Set(claimed.map((c) => c.delivery.eventId))]);
    const vinsByCompany = new Map<string, Set<string>>();
    for (const { delivery, row } of claimed) {
      const event = stored.get(delivery.eventId);
      if (event === undefined || !dependsOnDatapoints(event.type)) continue;
      vinsByCompany.set(row.company_id, (vinsByCompany.get(row.company_id) ?? new Set()).add(event.vin));
    }
    const allowances = new Map<string, Awaited<ReturnType<typeof datapointAllowances>>>();
    for (const [companyId, vins] of vinsByCompany) allowances.set(companyId, await datapointAllowances(store, companyId, vins));
    const seen = new Map<string, { event: ServiceEvent; position: number }>();
    for (const { delivery, row } of claimed) {
      const event = stored.get(delivery.eventId);
      if (event === undefined) continue;
      const allowed = allowances.get(row.company_id)?.get(event.vin) ?? (() => false);
      const visible = eventAsSeenBy(event, { companyId: row.company_id, applicationId: row.application_id }, allowed);
      if (visible) seen.set(delivery.id, { event: visible, position: event.position });
    }
    return seen;
  }

  #settleUnsent(delivery: DueDelivery, status: 'failed' | 'dropped', reason: string, at: number): void {
    this.#outcomes.add({
      endpointId: delivery.endpointId, attempt: undefined, health: undefined, at,
      settlement: { id: delivery.id, status, attempts: delivery.attempts, next_attempt_at: at, last_status: null, last_error: reason },
    });
  }

  /**
   * Starts what the lane may send now. One whose lease could lapse before its attempt's deadline
   * (it waited longer than its claim planned: every slot was busy) is not sent from here: another
   * claim may already hold it. It is given back.
   */
  #pump(lane: Lane): void {
    const { settings } = this.#deps;
    const expiring: string[] = [];
    const slots = settings.perEndpointConcurrency + this.#queuedPerLane;
    const heldCap = Math.floor((settings.concurrency * this.#queuedPerLane) / settings.perEndpointConcurrency);
    const mayStart = () => (lane.running < settings.perEndpointConcurrency ? this.#onWire < settings.concurrency : this.#held < heldCap);
    while (!this.#closed && lane.stoppedAt === undefined && lane.running < slots && mayStart() && lane.waiting.length > 0) {
      const item = lane.waiting.shift()!;
      // Past the endpoint's concurrency it waits in the transport: the i-th waiting starts once
      // i + 1 posts on the wire have ended, a deadline for each round of them.
      const waiting = lane.running - settings.perEndpointConcurrency;
      const rounds = 1 + (waiting < 0 ? 0 : Math.floor(waiting / settings.perEndpointConcurrency) + 1);
      const deadline = this.#clock.now() + rounds * settings.timeoutMs + SETTLE_ALLOWANCE_MS;
      if (item.kind === 'retry' && deadline > item.leaseUntil) {
        this.#claimed -= 1;
        expiring.push(item.delivery.id);
        continue;
      }
      if (item.kind === 'stream' && (item.tenure.lost || deadline > item.tenure.leaseUntil)) {
        // Not renewed in time (no pass ran): another instance may hold the stream by now.
        this.#readAhead -= 1;
        if (!item.tenure.lost) this.#abandon(item.tenure);
        continue;
      }
      this.#start(lane, item);
    }
    if (expiring.length > 0) void this.#giveBack(expiring);
  }

  /** Gives every lane its turn at the free slots, starting after `last` (the lane that just freed one). */
  #pumpAll(last?: Lane): void {
    const lanes = [...this.#lanes.values()];
    const from = last === undefined ? 0 : lanes.indexOf(last) + 1;
    for (let i = 0; i < lanes.length; i += 1) this.#pump(lanes[(from + i) % lanes.length]!);
  }

  #start(lane: Lane, item: Waiting): void {
    const { settings } = this.#deps;
    if (lane.running < settings.perEndpointConcurrency) this.#onWire += 1;
    else this.#held += 1;
    lane.running += 1;
    const attempt = this.#attempt(lane, item)
      .catch((error: unknown) => this.#logger.error({ err: error, endpoint: lane.row.id, event: item.event.id }, 'webhook attempt failed; it will be sent again'))
      .finally(() => {
        // Past the concurrency, one the transport held takes the freed place on the wire.
        if (lane.running > settings.perEndpointConcurrency) this.#held -= 1;
        else this.#onWire -= 1;
        this.#letGo(item);
        lane.running -= 1;
        this.#attempts.delete(attempt);
        // Round robin: the lane that freed a slot goes last, so a busy lane cannot starve the rest.
        this.#pumpAll(lane);
        this.#forgetIfIdle(lane);
        if (this.#lanes.get(lane.row.id) !== lane || lane.stoppedAt !== undefined) return;
        // Read or claim more before the lane runs dry, so a fast receiver never waits for a pass.
        const tenure = this.#streams.get(lane.row.id);
        if (tenure !== undefined && lane.waiting.length < (settings.perEndpointConcurrency * STREAM_AHEAD) / 2) {
          void this.#readStream(tenure).catch((error: unknown) => this.#logger.error({ err: error }, 'webhook stream could not be read; the next pass tries again'));
        }
        if (tenure !== undefined && !this.#moreDue.has(lane.row.id)) return;
        // Counted only here: a stream's lane holds up to 256 waiting, and this runs per attempt.
        const retries = lane.waiting.reduce((n, w) => n + (w.kind === 'retry' ? 1 : 0), 0);
        if (retries < settings.perEndpointConcurrency * 2) this.#refill(lane.row.id);
      });
    this.#attempts.add(attempt);
  }

  /** Claims more for a lane now rather than at the next pass (at most one claim at a time). */
  #refill(endpointId: string): void {
    if (this.#closed || this.#pumping) return;
    this.#pumping = this.dispatchDue(endpointId)
      .then(() => undefined, (error: unknown) => this.#logger.error({ err: error }, 'webhook deliveries could not be claimed; the next pass tries again'))
      .finally(() => { this.#pumping = undefined; });
  }

  async #attempt(lane: Lane, item: Waiting): Promise<void> {
    const { row, secrets } = lane;
    const { sent, attempt } = await postSigned(this.#deps, row, item.event, {
      trigger: 'auto', secrets, position: item.position, lane: { key: row.id, concurrency: this.#deps.settings.perEndpointConcurrency },
    });
    if (sent.error === 'cancelled') {
      // Held by the transport, never sent, when its lane was emptied: no attempt. A stream's event
      // stays before the position; a claimed retry goes back.
      if (!this.#closed && lane.stoppedAt === undefined && this.#lanes.get(row.id) === lane) {
        // Not emptied here: the transport stopped the lane on its own (a 410 whose answer never
        // reached this thread in time). Lift that, and take the stream again from its position,
        // so the event is read and sent again rather than holding the position back.
        this.#deps.transport.cancel?.(row.id);
        if (item.kind === 'stream' && !item.tenure.lost) this.#abandon(item.tenure);
      }
      if (item.kind === 'retry') await this.#giveBack([item.delivery.id]);
      return;
    }
    const attempts = item.kind === 'retry' ? item.delivery.attempts + 1 : 1;
    const at = this.#clock.now();
    this.#observer?.attempt(resultOf(sent.status, sent.error), sent.durationMs / 1000);
    const { health, ...settled } = settleAttempt(sent, attempts, at, Math.random);
    if (health === 'gone') {
      // Gone means stop now, not after the outcome is written: nothing more starts for it here.
      lane.stoppedAt = at;
      void this.#giveBack(this.#emptyLane(lane));
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
    item.tenure.window.finish(item.position);
    this.#advance(lane, item.tenure, at, { attempt, health, retry });
  }

  async #disable(endpointId: string, reason: 'gone' | 'failing', at: number): Promise<void> {
    const lane = this.#lanes.get(endpointId);
    if (lane) {
      lane.stoppedAt ??= at;
      this.#emptyLane(lane); // failed below with the rest of its pending deliveries
    }
    // Only an endpoint still enabled: an operator's disable (or a removal) meanwhile stands.
    if (!(await disableWebhookEndpoint(this.#deps.store.db, endpointId, reason, at))) return;
    await failPendingDeliveries(this.#deps.store.db, endpointId, `endpoint disabled (${reason})`, at);
    this.#logger.warn({ endpoint: endpointId, application: lane?.row.application_id, reason }, 'webhook endpoint disabled');
  }
}

function resultOf(status: number | undefined, error: string | undefined): AttemptResult {
  if (status === undefined) return (['timeout', 'tls', 'dns', 'refused'] as const).find((kind) => kind === error) ?? 'connection';
  if (status >= 200 && status <= 299) return 'success';
  return status === 410 ? 'gone' : 'http_error';
}
