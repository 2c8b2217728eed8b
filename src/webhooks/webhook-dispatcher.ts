/**
 * Webhook delivery, at least once (D12). Each pass:
 *
 * 1. Fans out: reads the outbox after the fan-out's position and queues each event for every
 *    enabled endpoint that subscribed to its type and may see it (its company; its application's
 *    own commands), in one transaction with the new position. One fan-out at a time across
 *    instances (the first statement locks the position row); a delivery is unique per
 *    (endpoint, event), so nothing is queued twice.
 * 2. Sends what is due: each delivery is claimed with a lease (a conditional update: one
 *    instance wins), sent, and settled. A process that dies mid-attempt leaves a lease that
 *    lapses, and the delivery is sent again with the same `webhook-id`.
 *
 * Attempts run beside the loop, at most `perEndpointConcurrency` to one endpoint and
 * `concurrency` in all, so a slow receiver holds its own slots and nobody else's. The body is
 * the event as the endpoint's application sees it when it is sent (domain/event-visibility.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { eventAsSeenBy, mayConcern } from '../domain/event-visibility.js';
import { classifyAnswer, nextAttemptAt, shouldDisable } from '../domain/webhook-retry.js';
import { numberCommittedEvents } from '../store/events-queries.js';
import type { Db } from '../store/connection.js';
import {
  claimDelivery, dueDeliveries, failPendingDeliveries, findWebhookEndpoint, insertDeliveries, recordEndpointOutcome, settleDelivery, updateWebhookEndpoint,
  type DueDelivery, type WebhookEndpointRow,
} from '../store/webhook-queries.js';
import { datapointAllowances } from '../events/datapoint-allowances.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { sendSigned, type WebhookDeps } from './webhook-endpoints.js';

const FAN_OUT_BATCH = 1000;

/** An attempt's result as metrics count it. */
export type AttemptResult = 'success' | 'http_error' | 'gone' | 'timeout' | 'connection' | 'tls' | 'dns' | 'refused';

/** Who is told about each attempt (the metrics adapter). */
export interface WebhookObserver {
  attempt(result: AttemptResult, seconds: number): void;
}
/**
 * A lease outlives the attempt's deadline by at least this much (and by the deadline again when
 * that is longer): only a dead holder lets it lapse, not a slow settle.
 */
const MIN_LEASE_MARGIN_MS = 5_000;

export class WebhookDispatcher {
  readonly #deps: WebhookDeps;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #owner = `dispatcher-${randomUUID()}`;
  readonly #inFlight = new Map<string, number>();
  readonly #attempts = new Set<Promise<void>>();
  #total = 0;
  #pumping: Promise<void> | undefined;
  #dispatching: Promise<void> | undefined;
  #closed = false;

  readonly #observer: WebhookObserver | undefined;

  constructor(deps: WebhookDeps, logger: Logger, observer?: WebhookObserver) {
    this.#deps = deps;
    this.#logger = logger;
    this.#clock = deps.clock;
    this.#observer = observer;
  }

  periodicWorker(): PeriodicWorker {
    return { name: 'webhook delivery', intervalMs: this.#deps.settings.pollMs, runOnce: () => this.runOnce() };
  }

  /** One pass: fan out, then start what is due and fits; `more` when either left work behind. */
  async runOnce(): Promise<{ more: boolean }> {
    const fannedOut = await this.fanOut();
    const started = await this.dispatchDue();
    return { more: fannedOut === FAN_OUT_BATCH || started.more };
  }

  /** Settles once every attempt under way has, and those they started (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.#attempts.size > 0 || this.#pumping) await Promise.allSettled([...this.#attempts, this.#pumping]);
  }

  /** No attempt starts after this; the ones under way are left to end (`settle`). */
  close(): void {
    this.#closed = true;
  }

  /**
   * An attempt that ended freed a slot: start what is due now rather than at the next pass, so a
   * fast receiver is sent as fast as it answers, not `perEndpointConcurrency` per poll.
   */
  #refill(): void {
    if (this.#closed || this.#pumping) return;
    this.#pumping = this.dispatchDue()
      .then(() => undefined, (error: unknown) => this.#logger.error({ err: error }, 'webhook deliveries could not be started; the next pass tries again'))
      .finally(() => { this.#pumping = undefined; });
  }

  /** Queues the outbox's new events for the endpoints that want them; returns how many events were read. */
  async fanOut(): Promise<number> {
    const { store } = this.#deps;
    await numberCommittedEvents(store);
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

  /** Claims and starts due deliveries within the concurrency caps; one run at a time, so the caps hold. */
  async dispatchDue(): Promise<{ more: boolean }> {
    while (this.#dispatching) await this.#dispatching;
    const run = this.#dispatchOnce();
    this.#dispatching = run.then(() => undefined, () => undefined);
    try {
      return await run;
    } finally {
      this.#dispatching = undefined;
    }
  }

  async #dispatchOnce(): Promise<{ more: boolean }> {
    const { settings, store } = this.#deps;
    const room = settings.concurrency - this.#total;
    if (room <= 0 || this.#closed) return { more: false };
    const now = this.#clock.now();
    const busy = [...this.#inFlight].filter(([, n]) => n >= settings.perEndpointConcurrency).map(([id]) => id);
    const due = await dueDeliveries(store.db, now, room * 2, busy);
    let started = 0;
    for (const delivery of due) {
      if (started >= room) break;
      if ((this.#inFlight.get(delivery.endpointId) ?? 0) >= settings.perEndpointConcurrency) continue;
      if (!(await claimDelivery(store.db, delivery.id, this.#owner, now, now + settings.timeoutMs + Math.max(MIN_LEASE_MARGIN_MS, settings.timeoutMs)))) continue;
      started += 1;
      this.#start(delivery);
    }
    return { more: due.length === room * 2 && started > 0 };
  }

  #start(delivery: DueDelivery): void {
    this.#total += 1;
    this.#inFlight.set(delivery.endpointId, (this.#inFlight.get(delivery.endpointId) ?? 0) + 1);
    const attempt = this.#attempt(delivery)
      .catch((error: unknown) => this.#logger.error({ err: error, delivery: delivery.id }, 'webhook attempt failed; its lease will lapse and it will be sent again'))
      .finally(() => {
        this.#total -= 1;
        const left = (this.#inFlight.get(delivery.endpointId) ?? 1) - 1;
        if (left > 0) this.#inFlight.set(delivery.endpointId, left);
        else this.#inFlight.delete(delivery.endpointId);
        this.#attempts.delete(attempt);
        this.#refill();
      });
    this.#attempts.add(attempt);
  }

  async #attempt(delivery: DueDelivery): Promise<void> {
    const { store } = this.#deps;
    const endpoint = await findWebhookEndpoint(store.db, delivery.endpointId);
    const now = () => this.#clock.now();
    if (!endpoint || endpoint.status !== 'enabled') {
      await settleDelivery(store.db, delivery.id, this.#owner, { status: 'failed', attempts: delivery.attempts, next_attempt_at: now(), last_status: null, last_error: 'endpoint not enabled' }, now());
      return;
    }
    const row = await store.db.selectFrom('events').selectAll().where('id', '=', delivery.eventId).executeTakeFirst();
    const stored = row && { id: row.id, type: row.type, vin: row.vin, companyId: row.company_id, applicationId: row.application_id, occurredAt: Number(row.occurred_at), data: JSON.parse(row.data) as unknown };
    const allowed = stored ? (await datapointAllowances(store, endpoint.company_id, [stored.vin])).get(stored.vin) : undefined;
    const event = stored && eventAsSeenBy(stored, { companyId: endpoint.company_id, applicationId: endpoint.application_id }, allowed ?? (() => false));
    if (!event) {
      // Dropped by retention, or no longer the application's to see.
      await settleDelivery(store.db, delivery.id, this.#owner, { status: 'dropped', attempts: delivery.attempts, next_attempt_at: now(), last_status: null, last_error: 'event no longer available' }, now());
      return;
    }
    const sent = await sendSigned(this.#deps, endpoint, event, 'auto');
    const attempts = delivery.attempts + 1;
    const at = now();
    this.#observer?.attempt(resultOf(sent.status, sent.error), sent.durationMs / 1000);
    if (sent.status === undefined) {
      // A refused address is not retried: it will not be allowed later.
      const next = sent.error === 'refused' ? undefined : nextAttemptAt(attempts, at, Math.random);
      await settleDelivery(store.db, delivery.id, this.#owner, { status: next === undefined ? 'failed' : 'pending', attempts, next_attempt_at: next ?? at, last_status: null, last_error: sent.error ?? 'connection' }, at);
      await this.#recordHealth(endpoint, 'failure', at);
      return;
    }
    const outcome = classifyAnswer(sent.status, sent.retryAfter, at);
    if (outcome.kind === 'success') {
      await settleDelivery(store.db, delivery.id, this.#owner, { status: 'succeeded', attempts, next_attempt_at: at, last_status: sent.status, last_error: null }, at);
      await this.#recordHealth(endpoint, 'success', at);
    } else if (outcome.kind === 'gone') {
      await settleDelivery(store.db, delivery.id, this.#owner, { status: 'failed', attempts, next_attempt_at: at, last_status: sent.status, last_error: 'gone' }, at);
      await this.#disable(endpoint, 'gone', at);
    } else {
      const next = nextAttemptAt(attempts, at, Math.random, outcome.retryAfterMs);
      await settleDelivery(store.db, delivery.id, this.#owner, { status: next === undefined ? 'failed' : 'pending', attempts, next_attempt_at: next ?? at, last_status: sent.status, last_error: outcome.reason }, at);
      await this.#recordHealth(endpoint, 'failure', at);
    }
  }

  async #recordHealth(endpoint: WebhookEndpointRow, outcome: 'success' | 'failure', at: number): Promise<void> {
    // Side-by-side attempts: the streak is updated in the row, and judged as the row says after.
    const failingSince = await recordEndpointOutcome(this.#deps.store.db, endpoint.id, outcome === 'success', at);
    if (failingSince === undefined) return;
    if (shouldDisable({ failingSince }, at, this.#deps.settings.disableAfterMs)) await this.#disable(endpoint, 'failing', at);
  }

  async #disable(endpoint: WebhookEndpointRow, reason: string, at: number): Promise<void> {
    await updateWebhookEndpoint(this.#deps.store.db, endpoint.id, { status: 'disabled', disabled_reason: reason, updated_at: at });
    await failPendingDeliveries(this.#deps.store.db, endpoint.id, `endpoint disabled (${reason})`, at);
    this.#logger.warn({ endpoint: endpoint.id, application: endpoint.application_id, reason }, 'webhook endpoint disabled');
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
  const rows = await db.selectFrom('webhook_endpoints').selectAll().where('status', '=', 'enabled').execute();
  const byCompany = new Map<string, WebhookEndpointRow[]>();
  for (const row of rows) byCompany.set(row.company_id, [...(byCompany.get(row.company_id) ?? []), row]);
  return byCompany;
}
