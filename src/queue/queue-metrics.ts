/**
 * What `/metrics` tells an operator about the ingest queue. Counters of this process (records
 * queued by its edge, refused publishes, records its writers stored, failed stores) and, read
 * from the streams at each scrape, per stream: messages and bytes not yet stored, the age of the
 * oldest one, the writers' consumer's pending, unacknowledged and redelivered counts, and whether
 * the stream can acknowledge. A growing oldest age is the alarm: storage is not keeping up, or is
 * down. Every process with the queue reports the same per-stream figures: aggregate them with
 * max (or read one process), never sum.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { JetStreamManager } from '@nats-io/jetstream';
import { settleWithin } from '../domain/settle-within.js';
import { listIngestStreams, WRITERS_CONSUMER } from './ingest-streams.js';
import { hasQuorum } from './ingest-streams.js';

/** A scrape waits at most this long for the streams' answers. */
const SCRAPE_TIMEOUT_MS = 2000;

export class QueueMetrics {
  readonly queued: Counter;
  readonly duplicates: Counter;
  readonly refused: Counter<'reason'>;
  readonly stored: Counter;
  readonly storedMessages: Counter;
  readonly storeFailures: Counter;
  readonly dropped: Counter;
  readonly rejected: Counter<'reason'>;
  #jsm: JetStreamManager | undefined;
  #cache: { at: number; figures: Promise<StreamFigures[]> } | undefined;
  /** The streams last listed: when listing fails, they are still reported (as not ready). */
  #streams: readonly string[] = [];

  constructor(registry: Registry) {
    const registers = [registry];
    this.queued = new Counter({ name: 'ingest_queue_published_records_total', help: 'Records this process put on the ingest queue (acknowledged by the stream)', registers });
    this.duplicates = new Counter({ name: 'ingest_queue_duplicate_records_total', help: 'Records sent again that the stream already held (same message id within its 2-minute window): acknowledged, not queued twice', registers });
    this.refused = new Counter({ name: 'ingest_queue_refused_total', help: 'Ingest messages the queue did not acknowledge in time (unavailable) or refused (full): answered 503', labelNames: ['reason'] as const, registers });
    this.stored = new Counter({ name: 'ingest_queue_stored_records_total', help: 'Records this process\'s writers stored from the queue (a record delivered twice counts twice)', registers });
    this.storedMessages = new Counter({ name: 'ingest_queue_stored_messages_total', help: 'Queue messages this process\'s writers stored and acknowledged', registers });
    this.storeFailures = new Counter({ name: 'ingest_queue_store_failures_total', help: 'Queue messages this process\'s writers could not store; each is delivered again later', registers });
    this.dropped = new Counter({ name: 'ingest_queue_dropped_total', help: 'Queue messages that are not this service\'s, and queued records the database refused as invalid data: left out, each logged as an error', registers });
    this.rejected = new Counter({
      name: 'ingest_queue_rejected_records_total', labelNames: ['reason'] as const, registers,
      help: 'Queued records the writers\' own checks refused (malformed, invalid by D8, not a vehicle of the source they travel with, or in a message that names no source): not stored, each message logged as an error',
    });
    const figures = () => this.#figures();
    const streamGauge = (name: string, help: string, read: (s: StreamFigures) => number | undefined) => new Gauge({
      name, help, labelNames: ['stream'] as const, registers,
      collect: async function collect(this: Gauge<'stream'>) {
        this.reset();
        for (const s of await figures()) {
          const value = read(s);
          if (value !== undefined) this.set({ stream: s.stream }, value);
        }
      },
    });
    streamGauge('ingest_queue_messages', 'Messages in the stream, i.e. not yet stored', (s) => s.messages);
    streamGauge('ingest_queue_bytes', 'Bytes in the stream, against its limit', (s) => s.bytes);
    streamGauge('ingest_queue_oldest_age_seconds', 'Age of the oldest message not yet stored; 0 when none', (s) => s.oldestAgeSeconds);
    streamGauge('ingest_queue_pending', 'Messages the writers have not yet taken', (s) => s.pending);
    streamGauge('ingest_queue_ack_pending', 'Messages taken by a writer and not yet acknowledged', (s) => s.ackPending);
    streamGauge('ingest_queue_redelivered', 'Messages delivered again (a writer failed, or did not acknowledge in time)', (s) => s.redelivered);
    streamGauge('ingest_queue_stream_ready', '1 when the stream answers with a leader and a majority of its replicas current (it can acknowledge), else 0', (s) => (s.ready ? 1 : 0));
  }

  /** Reads per-stream figures through this manager at each scrape. */
  watch(jsm: JetStreamManager): void {
    this.#jsm = jsm;
  }

  /** One read of the streams serves the six gauges of a scrape. */
  #figures(): Promise<StreamFigures[]> {
    const jsm = this.#jsm;
    if (!jsm) return Promise.resolve([]);
    const now = Date.now();
    if (this.#cache && now - this.#cache.at < 500) return this.#cache.figures;
    const figures = readFigures(jsm, now, this.#streams).then((read) => {
      this.#streams = read.map((f) => f.stream);
      return read;
    }, () => []);
    this.#cache = { at: now, figures };
    return figures;
  }
}

interface StreamFigures {
  readonly stream: string;
  readonly ready: boolean;
  readonly messages?: number;
  readonly bytes?: number;
  readonly oldestAgeSeconds?: number;
  readonly pending?: number;
  readonly ackPending?: number;
  readonly redelivered?: number;
}

/** Each stream on its own: one without a leader is reported not ready, and does not hide the others. */
async function readFigures(jsm: JetStreamManager, now: number, known: readonly string[]): Promise<StreamFigures[]> {
  const names = await listIngestStreams(jsm).catch(() => known);
  return Promise.all(names.map((stream) => readStream(jsm, stream, now)));
}

async function readStream(jsm: JetStreamManager, stream: string, now: number): Promise<StreamFigures> {
  const info = await settleWithin(jsm.streams.info(stream), SCRAPE_TIMEOUT_MS, undefined);
  // Unknown is not zero: a stream that does not answer reports only that it is not ready.
  if (!info) return { stream, ready: false };
  const consumer = await settleWithin(jsm.consumers.info(stream, WRITERS_CONSUMER), SCRAPE_TIMEOUT_MS, undefined);
  const first = Date.parse(info.state.first_ts);
  return {
    stream,
    ready: hasQuorum(info),
    messages: info.state.messages,
    bytes: info.state.bytes,
    oldestAgeSeconds: info.state.messages > 0 && Number.isFinite(first) ? Math.max(0, (now - first) / 1000) : 0,
    pending: consumer?.num_pending ?? 0,
    ackPending: consumer?.num_ack_pending ?? 0,
    redelivered: consumer?.num_redelivered ?? 0,
  };
}
