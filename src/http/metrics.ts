import { Type } from 'typebox';
import { documentedAs, noSecurity } from './schemas.js';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics: process metrics and one request histogram labelled by route template
 * (never the raw URL, which would make a series per VIN). They reveal per-route volumes and the
 * Node version, so /metrics can live on the operations listener instead of the API port
 * (`--ops-port`); the histogram is fed by the API app either way.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * One series per (method, route template, status): few, so each is looked up once and kept,
   * instead of prom-client hashing a label object on every request.
   */
  readonly #series = new Map<string, { observe(seconds: number): void }>();

  /** Counts every request `app` answers. */
  record(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const key = `${request.method} ${reply.statusCode} ${route}`;
      let series = this.#series.get(key);
      if (series === undefined) {
        series = this.#requests.labels(request.method, route, String(reply.statusCode));
        this.#series.set(key, series);
      }
      series.observe(reply.elapsedTime / 1000);
      done();
    });
  }

  /** GET /metrics on `app`. */
  serve(app: FastifyInstance): void {
    app.get('/metrics', {
      schema: {
        operationId: 'getMetrics', summary: 'Prometheus metrics', tags: ['operations'], security: noSecurity, produces: ['text/plain'],
      },
      // Documented only: a response schema would have the serializer quote the text.
      config: { swaggerTransform: documentedAs({ response: { 200: Type.String({ description: 'Prometheus text exposition format' }) } }) },
      logLevel: 'warn',
    }, async (_request, reply) => {
      reply.type(this.registry.contentType);
      return this.registry.metrics();
    });
  }
}
