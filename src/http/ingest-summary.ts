/**
 * Successful ingests as one log line a minute instead of a line per request: an automaker (or
 * the simulated fleet) pushing every few seconds would otherwise fill the log with identical
 * lines. Refused requests (4xx, 5xx) keep their own request line; `--log-level debug` brings the
 * per-request lines of successes back.
 */
import type { FastifyBaseLogger } from 'fastify';

interface Totals {
  requests: number;
  accepted: number;
  rejected: number;
}

export const INGEST_SUMMARY_PERIOD_MS = 60_000;

export class IngestSummary {
  #byOem = new Map<string, Totals>();
  #since: number;

  constructor(private readonly logger: FastifyBaseLogger, private readonly now: () => number = Date.now) {
    this.#since = now();
  }

  add(oem: string, accepted: number, rejected: number): void {
    let totals = this.#byOem.get(oem);
    if (totals === undefined) this.#byOem.set(oem, totals = { requests: 0, accepted: 0, rejected: 0 });
    totals.requests += 1;
    totals.accepted += accepted;
    totals.rejected += rejected;
  }

  /** Logs what arrived since the last flush, if anything did. */
  flush(): void {
    const now = this.now();
    const seconds = Math.round((now - this.#since) / 1000);
    this.#since = now;
    if (this.#byOem.size === 0) return;
    const all: Totals = { requests: 0, accepted: 0, rejected: 0 };
    const oems: Record<string, Totals> = {};
    for (const [oem, totals] of this.#byOem) {
      oems[oem] = totals;
      all.requests += totals.requests;
      all.accepted += totals.accepted;
      all.rejected += totals.rejected;
    }
    this.#byOem = new Map();
    this.logger.info({ seconds, ...all, oems },
      `ingest: ${all.requests} requests, ${all.accepted} records accepted, ${all.rejected} rejected in the last ${seconds} s`);
  }

  /** Flushes every period until the returned function is called (which flushes once more). */
  start(periodMs = INGEST_SUMMARY_PERIOD_MS): () => void {
    const timer = setInterval(() => this.flush(), periodMs);
    timer.unref();
    return () => {
      clearInterval(timer);
      this.flush();
    };
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `summary`: a success is counted in a periodic summary line instead of its own request line. */
    requestLog?: 'summary';
  }
}
