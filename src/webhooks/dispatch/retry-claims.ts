/**
 * Delivery rows due, retries and recoveries: claimed in batches per endpoint with one conditional
 * update (one instance wins each row); a lapsed lease makes a row due again. A queue holds at
 * most CLAIM_ROUNDS times its endpoint's slots of claimed rows, and their leases last as long as
 * the queue could take to send them all.
 */
import type { ServiceEvent } from '@telematics/contract';
import type { Logger } from 'pino';
import { dependsOnDatapoints, eventAsSeenBy } from '../../domain/event-visibility.js';
import { datapointAllowances } from '../../events/datapoint-allowances.js';
import { findEventsByIds } from '../../store/events-queries.js';
import { claimDeliveries, dueDeliveries, releaseDeliveries, type DueDelivery } from '../../store/webhooks/deliveries.js';
import { findWebhookEndpoints, type WebhookEndpointRow } from '../../store/webhooks/endpoints.js';
import type { WebhookDeps } from '../webhook-deps.js';
import type { DeliveryOutcomes } from './delivery-outcomes.js';
import { MIN_LEASE_MARGIN_MS, waitingOf } from './endpoint-queue.js';
import type { SendSlots } from './send-slots.js';
import type { DispatchPartOptions } from './dispatch-part-options.js';

/** A queue holds at most this many rounds of its endpoint's slots of claimed delivery rows. */
const CLAIM_ROUNDS = 4;

export type RetryClaimsOptions = DispatchPartOptions;

export class RetryClaims {
  readonly #deps: WebhookDeps;
  readonly #owner: string;
  readonly #logger: Logger;
  readonly #slots: SendSlots;
  readonly #outcomes: DeliveryOutcomes;
  readonly #isClosed: () => boolean;
  /** Endpoints with more delivery rows due than their queues took: claimed for as slots free up. */
  readonly #backlogged = new Set<string>();
  #claiming: Promise<void> | undefined;
  #claimingMore: Promise<void> | undefined;

  constructor(options: RetryClaimsOptions) {
    this.#deps = options.deps;
    this.#owner = options.owner;
    this.#logger = options.logger;
    this.#slots = options.slots;
    this.#outcomes = options.outcomes;
    this.#isClosed = options.isClosed;
  }

  /** The claim under way, if any. */
  get claiming(): Promise<void> | undefined {
    return this.#claiming;
  }

  /** The claim for one queue running low (claimMoreFor) under way, if any. */
  get claimingMore(): Promise<void> | undefined {
    return this.#claimingMore;
  }

  isBacklogged(endpointId: string): boolean {
    return this.#backlogged.has(endpointId);
  }

  /** The endpoint is disabled or gone: nothing more is claimed for it as slots free up. */
  forget(endpointId: string): void {
    this.#backlogged.delete(endpointId);
  }

  /**
   * Claims due deliveries into queues within the caps and starts what fits: every endpoint's, or
   * one queue's (`endpointId`) when it runs low. One run at a time, so the caps hold.
   */
  async claim(endpointId?: string): Promise<{ more: boolean }> {
    while (this.#claiming) await this.#claiming;
    const run = this.#claimOnce(endpointId);
    this.#claiming = run.then(() => undefined, () => undefined);
    try {
      return await run;
    } finally {
      this.#claiming = undefined;
    }
  }

  /** Claims more for a queue now rather than at the next pass (at most one such claim at a time). */
  claimMoreFor(endpointId: string): void {
    if (this.#isClosed() || this.#claimingMore) return;
    this.#claimingMore = this.claim(endpointId)
      .then(() => undefined, (error: unknown) => this.#logger.error({ err: error }, 'webhook deliveries could not be claimed; the next pass tries again'))
      .finally(() => { this.#claimingMore = undefined; });
  }

  /** Releases leases this process holds but will not use: due again at once. */
  async release(ids: readonly string[]): Promise<void> {
    try {
      await releaseDeliveries(this.#deps.store.db, ids, this.#owner, this.#deps.clock.now());
    } catch (error) {
      this.#logger.warn({ err: error, deliveries: ids.length }, 'webhook deliveries could not be given back; their leases will lapse');
    }
  }

  async #claimOnce(endpointId: string | undefined): Promise<{ more: boolean }> {
    const { settings, store } = this.#deps;
    const queueCap = settings.perEndpointConcurrency * CLAIM_ROUNDS;
    // Claimed rows only: a stream's read-ahead does not keep the endpoint's retries out.
    const held = (id: string) => {
      const queue = this.#slots.get(id);
      return queue ? queue.running + waitingOf(queue, 'retry') : 0;
    };
    const room = Math.min(settings.concurrency * CLAIM_ROUNDS - this.#slots.claimed, endpointId === undefined ? Infinity : queueCap - held(endpointId));
    if (room <= 0 || this.#isClosed()) return { more: false };
    const now = this.#deps.clock.now();
    const full = [...this.#slots.entries()].filter(([id, queue]) => queue.stoppedAt !== undefined || held(id) >= queueCap).map(([id]) => id);
    if (endpointId !== undefined && this.#slots.get(endpointId)?.stoppedAt !== undefined) return { more: false };
    const due = await dueDeliveries(store.db, now, room, endpointId === undefined ? { busyEndpoints: full } : { endpointId });
    const byEndpoint = new Map<string, DueDelivery[]>();
    if (endpointId !== undefined) {
      if (due.length === room) this.#backlogged.add(endpointId);
      else this.#backlogged.delete(endpointId);
    }
    for (const delivery of due) {
      const group = byEndpoint.get(delivery.endpointId) ?? [];
      if (group.length + held(delivery.endpointId) >= queueCap) {
        this.#backlogged.add(delivery.endpointId);
        continue;
      }
      group.push(delivery);
      byEndpoint.set(delivery.endpointId, group);
    }
    if (byEndpoint.size === 0) return { more: false };
    const rows = await findWebhookEndpoints(store.db, [...byEndpoint.keys()]);
    const won: Array<{ delivery: DueDelivery; row: WebhookEndpointRow | undefined; leaseUntil: number }> = [];
    for (const [id, group] of byEndpoint) {
      const row = rows.get(id);
      const rounds = Math.ceil((held(id) + group.length) / Math.min(settings.perEndpointConcurrency, settings.concurrency)) + this.#slots.waitRounds();
      const leaseUntil = now + rounds * settings.timeoutMs + Math.max(MIN_LEASE_MARGIN_MS, settings.timeoutMs);
      const claimed = await claimDeliveries(store.db, group.map((d) => d.id), this.#owner, now, leaseUntil);
      for (const delivery of group) if (claimed.has(delivery.id)) won.push({ delivery, row: row?.status === 'enabled' ? row : undefined, leaseUntil });
    }
    if (this.#isClosed()) {
      // Stopped while claiming: what was won goes back at once.
      await this.release(won.map((w) => w.delivery.id));
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
      this.#slots.queueRetry(this.#slots.queueOf(row, now), { kind: 'retry', delivery, position: seen.position, event: seen.event, leaseUntil });
    }
    this.#slots.startAllReady();
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
}
