import { Type, type TSchema } from 'typebox';
import { documentedAs, errorResponses, noSecurity, REQUEST_ERRORS } from './schemas.js';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Registry, type Metric } from 'prom-client';

/**
 * Prometheus metrics: process metrics and one request histogram labelled by route template
 * (never the raw URL, which would make a series per VIN). They reveal per-route volumes and the
 * Node version, so /metrics can live on the operations listener instead of the API port
 * (`--ops-port`); the histogram is fed by the API app either way.
 */
/** The answer as documented: text, while its errors stay the JSON every route answers. */
const PROMETHEUS_TEXT = { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: Type.String() } } } as unknown as TSchema;

/** Upper bounds of the request histogram, seconds. */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** One (method, route, status) series: counts per bucket (not cumulative), sum and count. */
interface Series {
  readonly labels: { readonly method: string; readonly route: string; readonly status: string };
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds`, kept here and read by prom-client's registry when scraped (a
 * metric is anything with `get()`). prom-client's own Histogram validates and hashes the label
 * values on every observation, about a microsecond a request on the hot path; this finds the
 * series by route, status and method in nested maps and bumps a bucket. Nested, not one map by a
 * `method status route` text: that text was built and hashed anew on every request (~270 ns here,
 * against ~20 for the lookups, whose keys are the route's own template string, a number and the
 * method string Node's parser interns).
 */
class RequestDurations {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP request duration by method, route and status';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #byRoute = new Map<string, Map<number, Map<string, Series>>>();

  observe(method: string, route: string, status: number, seconds: number): void {
    let byStatus = this.#byRoute.get(route);
    if (byStatus === undefined) this.#byRoute.set(route, (byStatus = new Map()));
    let byMethod = byStatus.get(status);
    if (byMethod === undefined) byStatus.set(status, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (series === undefined) {
      series = { labels: { method, route, status: String(status) }, counts: new Float64Array(BUCKETS.length), sum: 0, count: 0 };
      byMethod.set(method, series);
    }
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket += 1;
    if (bucket < BUCKETS.length) series.counts[bucket]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  *#series(): Iterable<Series> {
    for (const byStatus of this.#byRoute.values()) {
      for (const byMethod of byStatus.values()) yield* byMethod.values();
    }
  }

  async get() {
    const values: Array<{ value: number; labels: Record<string, string | number>; metricName: string }> = [];
    for (const { labels, counts, sum, count } of this.#series()) {
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += counts[i]!;
        values.push({ value: cumulative, labels: { le, ...labels }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: count, labels: { le: '+Inf', ...labels }, metricName: `${this.name}_bucket` });
      values.push({ value: sum, labels, metricName: `${this.name}_sum` }, { value: count, labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.#byRoute.clear();
  }
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests = new RequestDurations();
  /** Stored telemetry rows a read left out because a column could not be read (domain/stored-record.ts). */
  readonly unreadableTelemetry: Counter<'column'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.registry.registerMetric(this.#requests as unknown as Metric);
    this.unreadableTelemetry = new Counter({
      name: 'telemetry_unreadable_rows_total', labelNames: ['column'] as const, registers: [this.registry],
      help: 'Stored telemetry rows left out of a vehicle-data answer because a column cannot be read (a malformed flag, a number that is not one); each is logged with its VIN and instant',
    });
  }

  /** Counts one answered request; `route` is its template (never the raw URL, a series per VIN). */
  observe(method: string, route: string | undefined, status: number, milliseconds: number): void {
    this.#requests.observe(method, route ?? 'unmatched', status, milliseconds / 1000);
  }

  /** GET /metrics on `app`. */
  serve(app: FastifyInstance): void {
    app.get('/metrics', {
      schema: {
        operationId: 'getMetrics', summary: 'Prometheus metrics', description: 'No authentication. Request counts and durations by route template, and the service\'s own gauges, in the Prometheus text format; only on the operations listener when --ops-port is set.', tags: ['operations'], security: noSecurity,
      },
      // Documented only: a response schema would have the serializer quote the text.
      // Its 404: the API port's answer once --ops-port moved it.
      config: { swaggerTransform: documentedAs({ response: { 200: PROMETHEUS_TEXT, ...errorResponses(REQUEST_ERRORS, 'notFound') } }) },
      logLevel: 'warn',
    }, async (_request, reply) => {
      reply.type(this.registry.contentType);
      return this.registry.metrics();
    });
  }
}
