/**
 * What `/metrics` tells an operator about webhooks: attempts by result and how long they took
 * (from the dispatcher), and, read from the database when scraped, deliveries waiting and how
 * long the oldest has waited, how far the slowest endpoint's stream is behind the outbox, and
 * endpoints by status. A growing backlog with `timeout` or
 * `http_error` results is a receiver in trouble; `refused` is an endpoint pointing where
 * webhooks may not go.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { StoreConnection } from '../store/connection.js';
import { lastEventPosition } from '../store/events-queries.js';
import { countPendingDeliveries, oldestDueDeliveryAt } from '../store/webhooks/deliveries.js';
import { countWebhookEndpointsByStatus } from '../store/webhooks/endpoints.js';
import { slowestStreamPosition } from '../store/webhooks/streams.js';
import type { AttemptResult, WebhookObserver } from '../webhooks/webhook-observer.js';

export class WebhookMetrics implements WebhookObserver {
  readonly #attempts: Counter<'result'>;
  readonly #seconds: Histogram;

  constructor(registry: Registry, store: StoreConnection, now: () => number = Date.now) {
    const registers = [registry];
    this.#attempts = new Counter({ name: 'webhook_attempts_total', help: 'Webhook delivery attempts by result', labelNames: ['result'] as const, registers });
    this.#seconds = new Histogram({ name: 'webhook_attempt_seconds', help: 'How long webhook attempts took, answer or not', buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15], registers });
    new Gauge({
      name: 'webhook_deliveries_pending', help: 'Webhook deliveries waiting for an attempt (due or retrying later)', registers,
      async collect() {
        this.set(await countPendingDeliveries(store.db));
      },
    });
    new Gauge({
      name: 'webhook_oldest_due_seconds', help: 'How long the longest-waiting due delivery has been due', registers,
      async collect() {
        const at = now();
        const due = await oldestDueDeliveryAt(store.db, at);
        this.set(due === undefined ? 0 : Math.max(0, (at - due) / 1000));
      },
    });
    new Gauge({
      name: 'webhook_stream_lag_events', help: 'Outbox events the slowest enabled webhook endpoint has not had its first attempt at (every company\'s, counted)', registers,
      async collect() {
        const last = await lastEventPosition(store);
        const slowest = await slowestStreamPosition(store.db);
        this.set(slowest === undefined ? 0 : Math.max(0, last - slowest));
      },
    });
    new Gauge({
      name: 'webhook_endpoints', help: 'Webhook endpoints by status', labelNames: ['status'] as const, registers,
      async collect() {
        const counts = await countWebhookEndpointsByStatus(store.db);
        this.reset();
        for (const [status, n] of counts) this.set({ status }, n);
      },
    });
  }

  attempt(result: AttemptResult, seconds: number): void {
    this.#attempts.inc({ result });
    this.#seconds.observe(seconds);
  }
}
