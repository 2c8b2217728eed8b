/**
 * Webhook delivery, at least once (D12). Each pass:
 *
 * 1. Fans out: reads the outbox after the fan-out's position and queues each event for every
 *    enabled endpoint that subscribed to its type and may see it (its company; its application's
 *    own commands), in one transaction with the new position. One fan-out at a time across
 *    instances (the first statement locks the position row); a delivery is unique per
 *    (endpoint, event), so nothing is queued twice.
 * 2. Claims what is due, a batch per endpoint with one conditional update (one instance wins
 *    each row), into the endpoint's lane here, and sends from the lane. Outcomes are written
 *    in batches (delivery-outcomes.ts). A process that dies leaves leases that lapse, and those
 *    deliveries are sent again with the same `webhook-id`.
 *
 * At most `perEndpointConcurrency` attempts are in flight to one endpoint and `concurrency` in
 * all, so a slow receiver holds its own slots and nobody else's; a lane holds at most
 * LANE_ROUNDS times its endpoint's slots, and its leases last as long as the lane could take to
 * send them all. The body is the event as the endpoint's application sees it when it is
 * claimed (domain/event-visibility.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ServiceEvent } from '@telematics/contract';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { dependsOnDatapoints, eventAsSeenBy, mayConcern } from '../domain/event-visibility.js';
import { classifyAnswer, nextAttemptAt } from '../domain/webhook-retry.js';
import { findEventsByIds, numberCommittedEvents } from '../store/events-queries.js';
import type { Db } from '../store/connection.js';
import {
  claimDeliveries, disableWebhookEndpoint, dueDeliveries, enabledWebhookEndpoints, failPendingDeliveries, findWebhookEndpoints, insertDeliveries, releaseDeliveries,
  type DeliverySettlement, type DueDelivery, type WebhookEndpointRow,
} from '../store/webhook-queries.js';
import { datapointAllowances } from '../events/datapoint-allowances.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { DeliveryOutcomes } from './delivery-outcomes.js';
import { postSigned, signingSecrets, type WebhookDeps } from './webhook-endpoints.js';

const FAN_OUT_BATCH = 1000;
/** A lane holds at most this many rounds of its endpoint's slots. */
const LANE_ROUNDS = 4;

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

/** One endpoint's claimed deliveries, waiting for a slot, and the attempts under way. */
interface Lane {
  row: WebhookEndpointRow;
  secrets: readonly string[];
  readonly waiting: Array<{ readonly delivery: DueDelivery; readonly event: ServiceEvent; readonly leaseUntil: number }>;
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
  readonly #attempts = new Set<Promise<void>>();
  readonly #outcomes: DeliveryOutcomes;
  /** Attempts under way, and deliveries claimed in all (waiting in lanes or under way). */
  #running = 0;
  #claimed = 0;
  #pumping: Promise<void> | undefined;
  #dispatching: Promise<void> | undefined;
  #closed = false;

  readonly #observer: WebhookObserver | undefined;

  constructor(deps: WebhookDeps, logger: Logger, observer?: WebhookObserver) {
    this.#deps = deps;
    this.#logger = logger;
    this.#clock = deps.clock;
    this.#observer = observer;
    this.#outcomes = new DeliveryOutcomes({
      db: deps.store.db, owner: this.#owner, disableAfterMs: deps.settings.disableAfterMs, logger,
      disable: (endpointId, reason, at) => this.#disable(endpointId, reason, at),
    });
  }

  periodicWorker(): PeriodicWorker {
    return { name: 'webhook delivery', intervalMs: this.#deps.settings.pollMs, runOnce: () => this.runOnce() };
  }

  /** One pass: fan out, then claim what is due and fits; `more` when either left work behind. */
  async runOnce(): Promise<{ more: boolean }> {
    const fannedOut = await this.fanOut();
    await this.#refreshLanes();
    const started = await this.dispatchDue();
    return { more: fannedOut === FAN_OUT_BATCH || started.more };
  }

  /** Settles once every attempt under way has, those they started, and their outcomes are written (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.#attempts.size > 0 || this.#pumping) await Promise.allSettled([...this.#attempts, this.#pumping]);
    await this.#outcomes.drain();
  }

  /** No attempt starts after this; the ones under way are left to end (`settle`). */
  close(): void {
    this.#closed = true;
  }

  /**
   * Stops for a shutdown: nothing more starts; what waits in lanes is given back (due again at
   * once, for another instance or the next start); attempts under way get `graceMs` to end, and
   * every outcome known by then is written. Later ones are dropped: their leases lapse.
   */
  async stop(graceMs: number): Promise<void> {
    this.#closed = true;
    // A claim under way finishes first, so what it won is given back with the rest.
    await Promise.allSettled([this.#pumping, this.#dispatching]);
    await this.#giveBack([...this.#lanes.values()].flatMap((lane) => this.#emptyLane(lane)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settle(), new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); })]);
    clearTimeout(timer);
    await this.#outcomes.close();
  }

  /** Queues the outbox's new events for the endpoints that want them; returns how many events were read. */
  async fanOut(): Promise<number> {
    const { store } = this.#deps;
    await numberCommittedEvents(store);
    // Polled often: look before taking the fan-out's lock, which is a write.
    const newer = await store.db.selectFrom('events').select('position')
      .where('position', '>', (eb) => eb.selectFrom('event_positions').select('last_position').where('name', '=', 'webhooks'))
      .limit(1).executeTakeFirst();
    if (newer === undefined) return 0;
    return store.db.transaction().execute(async (trx) => {
      await trx.updateTable('event_positions').set((eb) => ({ last_position: eb('last_position', '+', 0) })).where('name', '=', 'webhooks').execute();
      const { last_position: last } = await trx.selectFrom('event_positions').select('last_position').where('name', '=', 'webhooks').executeTakeFirstOrThrow();
      const events = await trx.selectFrom('events').select(['id', 'type', 'company_id', 'application_id', 'created_at', 'position'])
        .where('position', '>', Number(last)).orderBy('position').limit(FAN_OUT_BATCH).execute();
      if (events.length === 0) return 0;
      const endpoints = await enabledEndpointsByCompany(trx);
      const now = this.#clock.now();
      const rows = [];
      for (const event of events) {
        for (const endpoint of endpoints.get(event.company_id) ?? []) {
          if (!wants(endpoint, event.type) || Number(event.created_at) < Number(endpoint.enabled_at ?? Infinity)) continue;
          if (!mayConcern({ companyId: event.company_id, applicationId: event.application_id }, { companyId: endpoint.company_id, applicationId: endpoint.application_id })) continue;
          rows.push({
            id: randomUUID(), endpoint_id: endpoint.id, event_id: event.id, status: 'pending', attempts: 0, next_attempt_at: now,
            lease_owner: null, lease_until: null, last_status: null, last_error: null, created_at: now, updated_at: now,
          });
        }
      }
      await insertDeliveries(trx, rows);
      await trx.updateTable('event_positions').set({ last_position: Number(events.at(-1)!.position) }).where('name', '=', 'webhooks').execute();
      return events.length;
    });
  }

  /**
   * Rereads the endpoints that have lanes here: a rotated secret signs from now on, and what
   * waits for an endpoint removed or disabled meanwhile (here or elsewhere) is not sent.
   */
  async #refreshLanes(): Promise<void> {
    if (this.#lanes.size === 0) return;
    const { store, keyring } = this.#deps;
    const now = this.#clock.now();
    // Only the lanes read: one a refill opens meanwhile is not in `rows`, and is not gone.
    const lanes = [...this.#lanes];
    const rows = await findWebhookEndpoints(store.db, lanes.map(([id]) => id));
    const dropped: string[] = [];
    for (const [id, lane] of lanes) {
      const row = rows.get(id);
      if (row?.status === 'enabled') {
        if (lane.stoppedAt !== undefined && Number(row.enabled_at ?? 0) > lane.stoppedAt) lane.stoppedAt = undefined; // verified anew
        if (lane.stoppedAt === undefined) {
          lane.row = row;
          lane.secrets = signingSecrets(row, keyring, now);
          continue;
        }
      }
      // Removed, its deliveries are gone; disabled, they were failed: only a lease could be left.
      dropped.push(...this.#emptyLane(lane));
      if (row?.status !== 'enabled' && lane.running === 0 && this.#lanes.get(id) === lane) this.#lanes.delete(id);
    }
    await this.#giveBack(dropped);
  }

  /** Takes a lane's waiting deliveries out (they will not be sent from here) and forgets an idle lane that is not stopped. */
  #emptyLane(lane: Lane): string[] {
    const ids = lane.waiting.splice(0).map((w) => w.delivery.id);
    this.#claimed -= ids.length;
    if (lane.running === 0 && lane.stoppedAt === undefined && this.#lanes.get(lane.row.id) === lane) this.#lanes.delete(lane.row.id);
    return ids;
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
    const held = (id: string) => {
      const lane = this.#lanes.get(id);
      return lane ? lane.waiting.length + lane.running : 0;
    };
    const room = Math.min(settings.concurrency * LANE_ROUNDS - this.#claimed, endpointId === undefined ? Infinity : laneCap - held(endpointId));
    if (room <= 0 || this.#closed) return { more: false };
    const now = this.#clock.now();
    const full = [...this.#lanes].filter(([id, lane]) => lane.stoppedAt !== undefined || held(id) >= laneCap).map(([id]) => id);
    if (endpointId !== undefined && this.#lanes.get(endpointId)?.stoppedAt !== undefined) return { more: false };
    const due = await dueDeliveries(store.db, now, room, endpointId === undefined ? { busyEndpoints: full } : { endpointId });
    const byEndpoint = new Map<string, DueDelivery[]>();
    for (const delivery of due) {
      const group = byEndpoint.get(delivery.endpointId) ?? [];
      if (group.length + held(delivery.endpointId) >= laneCap) continue;
      group.push(delivery);
      byEndpoint.set(delivery.endpointId, group);
    }
    if (byEndpoint.size === 0) return { more: false };
    const rows = await findWebhookEndpoints(store.db, [...byEndpoint.keys()]);
    const won: Array<{ delivery: DueDelivery; row: WebhookEndpointRow | undefined; leaseUntil: number }> = [];
    for (const [endpointId, group] of byEndpoint) {
      const row = rows.get(endpointId);
      const rounds = Math.ceil((held(endpointId) + group.length) / Math.min(settings.perEndpointConcurrency, settings.concurrency));
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
      const event = events.get(delivery.id);
      if (event === undefined) {
        // Dropped by retention, or no longer the application's to see.
        this.#settleUnsent(delivery, 'dropped', 'event no longer available', now);
        continue;
      }
      let lane = this.#lanes.get(row.id);
      if (lane === undefined) {
        lane = { row, secrets: [], waiting: [], running: 0, stoppedAt: undefined };
        this.#lanes.set(row.id, lane);
      }
      if (lane.secrets.length === 0) lane.secrets = signingSecrets(row, keyring, now);
      lane.waiting.push({ delivery, event, leaseUntil });
      this.#claimed += 1;
    }
    this.#pumpAll();
    return { more: due.length === room && won.length > 0 };
  }

  /** Each claimed delivery's event as its endpoint's application sees it now; absent when it sees nothing. */
  async #eventsAsSeen(claimed: ReadonlyArray<{ delivery: DueDelivery; row: WebhookEndpointRow }>): Promise<Map<string, ServiceEvent>> {
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
    const seen = new Map<string, ServiceEvent>();
    for (const { delivery, row } of claimed) {
      const event = stored.get(delivery.eventId);
      if (event === undefined) continue;
      const allowed = allowances.get(row.company_id)?.get(event.vin) ?? (() => false);
      const visible = eventAsSeenBy(event, { companyId: row.company_id, applicationId: row.application_id }, allowed);
      if (visible) seen.set(delivery.id, visible);
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
    while (!this.#closed && lane.stoppedAt === undefined && lane.running < settings.perEndpointConcurrency && this.#running < settings.concurrency && lane.waiting.length > 0) {
      const item = lane.waiting.shift()!;
      if (this.#clock.now() + settings.timeoutMs + SETTLE_ALLOWANCE_MS > item.leaseUntil) {
        this.#claimed -= 1;
        expiring.push(item.delivery.id);
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

  #start(lane: Lane, item: Lane['waiting'][number]): void {
    const { settings } = this.#deps;
    this.#running += 1;
    lane.running += 1;
    const attempt = this.#attempt(lane, lane.row, lane.secrets, item.delivery, item.event)
      .catch((error: unknown) => this.#logger.error({ err: error, delivery: item.delivery.id }, 'webhook attempt failed; its lease will lapse and it will be sent again'))
      .finally(() => {
        this.#running -= 1;
        this.#claimed -= 1;
        lane.running -= 1;
        this.#attempts.delete(attempt);
        // Round robin: the lane that freed a slot goes last, so a busy lane cannot starve the rest.
        this.#pumpAll(lane);
        if (lane.running === 0 && lane.waiting.length === 0 && lane.stoppedAt === undefined && this.#lanes.get(lane.row.id) === lane) this.#lanes.delete(lane.row.id);
        // Claim more before the lane runs dry, so a fast receiver is never left waiting for a pass.
        else if (lane.stoppedAt === undefined && lane.waiting.length < settings.perEndpointConcurrency * 2) this.#refill(lane.row.id);
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

  async #attempt(lane: Lane, row: WebhookEndpointRow, secrets: readonly string[], delivery: DueDelivery, event: ServiceEvent): Promise<void> {
    const { sent, attempt } = await postSigned(this.#deps, row, event, 'auto', 0, secrets);
    const attempts = delivery.attempts + 1;
    const at = this.#clock.now();
    this.#observer?.attempt(resultOf(sent.status, sent.error), sent.durationMs / 1000);
    const settle = (settlement: Omit<DeliverySettlement, 'id' | 'attempts'>, health: 'success' | 'failure' | 'gone') =>
      this.#outcomes.add({ endpointId: row.id, attempt, health, at, settlement: { id: delivery.id, attempts, ...settlement } });
    if (sent.status === undefined) {
      // A refused address is not retried: it will not be allowed later.
      const next = sent.error === 'refused' ? undefined : nextAttemptAt(attempts, at, Math.random);
      settle({ status: next === undefined ? 'failed' : 'pending', next_attempt_at: next ?? at, last_status: null, last_error: sent.error ?? 'connection' }, 'failure');
      return;
    }
    const outcome = classifyAnswer(sent.status, sent.retryAfter, at);
    if (outcome.kind === 'success') {
      settle({ status: 'succeeded', next_attempt_at: at, last_status: sent.status, last_error: null }, 'success');
    } else if (outcome.kind === 'gone') {
      // Gone means stop now, not after the outcome is written: nothing more starts for it here.
      lane.stoppedAt = at;
      void this.#giveBack(this.#emptyLane(lane));
      settle({ status: 'failed', next_attempt_at: at, last_status: sent.status, last_error: 'gone' }, 'gone');
    } else {
      const next = nextAttemptAt(attempts, at, Math.random, outcome.retryAfterMs);
      settle({ status: next === undefined ? 'failed' : 'pending', next_attempt_at: next ?? at, last_status: sent.status, last_error: outcome.reason }, 'failure');
    }
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

function wants(endpoint: WebhookEndpointRow, type: string): boolean {
  const types = JSON.parse(endpoint.event_types) as string[];
  return types.includes('*') || types.includes(type);
}

async function enabledEndpointsByCompany(db: Db): Promise<Map<string, WebhookEndpointRow[]>> {
  const rows = await enabledWebhookEndpoints(db);
  const byCompany = new Map<string, WebhookEndpointRow[]>();
  for (const row of rows) byCompany.set(row.company_id, [...(byCompany.get(row.company_id) ?? []), row]);
  return byCompany;
}
