/**
 * The writers (`serve --role writers`): take messages from every ingest stream through the
 * shared durable consumer, store their rows through the intake's storage half, then acknowledge.
 * Any number of writer processes share the consumers; a message one of them took and did not
 * acknowledge within the ack wait (crashed, stopped, hung) goes to another. Storing twice is
 * harmless: storage keeps the first record of a (VIN, second), and the events it implies have
 * ids made of their facts.
 *
 * Messages that arrive while a store is under way are stored together next (group commit), so
 * a backlog drains in large inserts and a trickle is stored as it comes. A failed store is
 * negatively acknowledged with a growing delay: while the database is down the messages stay in
 * the stream, and the stream absorbs the backlog up to its size limit. Nothing answered 200 is
 * ever dropped: a message is acknowledged only once its rows are stored, except a row the
 * database itself refuses as invalid data (a value that slipped past the intake's checks), which
 * is logged with its VIN and instant and left out so the rest of its message can be stored.
 *
 * The queue is not trusted: every row is checked again as the intake checks it, against the
 * source the message names (intake/recheck-queued-rows.ts), before anything is stored. A row
 * refused there is left out, logged (VIN, instant, reason; never the payload) and counted, and
 * its message is still acknowledged: delivering it again would refuse it again, for ever.
 */
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { storeTelemetryRows, type IntakeSettings } from '../intake/accept-telemetry.js';
import { recheckQueuedRows, type QueuedRowRefusal } from '../intake/recheck-queued-rows.js';
import { classifyStoreError } from '../store/classify-error.js';
import type { StoreConnection } from '../store/connection.js';
import type { TelemetryRow } from '../store/telemetry/insert.js';
import type { IngestQueue } from './ingest-queue.js';
import { listIngestStreams, ensureWritersConsumer, WRITERS_CONSUMER } from './ingest-streams.js';
import type { QueueMetrics } from './queue-metrics.js';
import { decodeQueueMessage, type QueuedBatch } from './queue-message.js';

/** Rows stored in one call at most; more waiting are stored in the next. */
const MAX_ROWS_PER_STORE = 20_000;
/** What a writer holds taken from one stream at once (the client's pull size). */
const PULL_BYTES = 4 * 1024 * 1024;
/**
 * How long one pull request lives (the client's default is 30 s): after the stream lost and
 * regained its quorum, a writer pulls again within this, instead of waiting out a stale pull.
 */
const PULL_EXPIRES_MS = 10_000;
/** How often the stream list is read again, to drain a stream added since the start. */
const RESCAN_MS = 30_000;
/** A message failing this often for a reason other than an unavailable database is stored row by row, to find the row at fault. */
const ROW_BY_ROW_AFTER = 3;
/** Refusals of one message named in its log line; the rest are counted. */
const REFUSALS_LOGGED = 3;

type Taken = { message: JsMsg; batches: readonly QueuedBatch[]; rows: number };
type Checked = { message: JsMsg; rows: TelemetryRow[] };

export interface RunningWriters {
  stop(): Promise<void>;
}

export async function startTelemetryWriters(
  queue: IngestQueue, store: StoreConnection, clock: Clock, intake: IntakeSettings, logger: Logger, metrics?: QueueMetrics,
): Promise<RunningWriters> {
  const writers = new Map<string, StreamWriter>();
  const scan = async () => {
    for (const stream of await listIngestStreams(queue.jsm)) {
      if (writers.has(stream)) continue;
      await ensureWritersConsumer(queue.jsm, stream, queue.settings);
      // A consumer that ends by itself (deleted, its stream gone) is taken up again at the next scan.
      const writer = new StreamWriter(queue, stream, store, clock, intake, logger.child({ stream }), metrics, () => writers.delete(stream));
      writers.set(stream, writer);
      await writer.start();
    }
  };
  await scan();
  logger.info({ streams: [...writers.keys()] }, 'telemetry writers taking from the ingest queue');
  const timer = setInterval(() => void scan().catch((error: unknown) => logger.warn({ err: error }, 'ingest streams could not be listed')), RESCAN_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...writers.values()].map((w) => w.stop()));
    },
  };
}

class StreamWriter {
  readonly #queue: IngestQueue;
  readonly #stream: string;
  readonly #store: StoreConnection;
  readonly #clock: Clock;
  readonly #intake: IntakeSettings;
  readonly #logger: Logger;
  readonly #metrics: QueueMetrics | undefined;
  /** Each stored message logged at debug (sequence, message id): the other half of the edge's acknowledgement log. */
  readonly #logStored: boolean;
  #messages: ConsumerMessages | undefined;
  #waiting: Taken[] = [];
  #draining: Promise<void> | undefined;
  #consuming: Promise<void> | undefined;
  #stopping = false;
  readonly #onEnd: () => void;

  constructor(
    queue: IngestQueue, stream: string, store: StoreConnection, clock: Clock, intake: IntakeSettings, logger: Logger, metrics: QueueMetrics | undefined, onEnd: () => void,
  ) {
    this.#onEnd = onEnd;
    this.#queue = queue;
    this.#stream = stream;
    this.#store = store;
    this.#clock = clock;
    this.#intake = intake;
    this.#logger = logger;
    this.#logStored = logger.isLevelEnabled('debug');
    this.#metrics = metrics;
  }

  async start(): Promise<void> {
    const consumer = await this.#queue.js.consumers.get(this.#stream, WRITERS_CONSUMER);
    this.#messages = await consumer.consume({ max_bytes: PULL_BYTES, expires: PULL_EXPIRES_MS });
    this.#consuming = (async () => {
      for await (const message of this.#messages!) this.#take(message);
    })().catch((error: unknown) => this.#logger.error({ err: error }, 'ingest stream consumer stopped')).finally(() => {
      if (!this.#stopping) this.#onEnd();
    });
  }

  #take(message: JsMsg): void {
    const decoded = decodeQueueMessage(message.data);
    if (decoded.kind === 'foreign') {
      this.#logger.error({ subject: message.subject, seq: message.seq, bytes: message.data.byteLength }, 'ingest queue message is not telemetry rows: dropped');
      this.#metrics?.dropped.inc();
      message.term();
      return;
    }
    if (decoded.kind === 'unsourced') {
      // An edge older than its writers (or anyone with queue rights): its rows could be any vehicle's.
      this.#metrics?.rejected.inc({ reason: 'no source' }, decoded.rows);
      this.#logger.error({ subject: message.subject, seq: message.seq, rows: decoded.rows }, 'ingest queue message names no source (an edge older than the writers?): its records are refused, not stored (docs/scaling.md, "Securing the queue")');
      message.term();
      return;
    }
    const rows = decoded.batches.reduce((n, b) => n + b.rows.length, 0);
    this.#waiting.push({ message, batches: decoded.batches, rows });
    this.#kick();
  }

  #kick(): void {
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      // A message taken between the loop's last look and here would wait for the next one.
      if (this.#waiting.length > 0) this.#kick();
    });
  }

  /** Stores what is waiting, in groups, until nothing is. */
  async #drain(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    // Messages waiting, or in a long store, must not outlast the ack wait and be sent to another writer too.
    const keepAlive = setInterval(() => { for (const { message } of this.#waiting) message.working(); }, this.#queue.settings.ackWaitMs / 3);
    try {
      while (this.#waiting.length > 0) {
        let count = 0;
        let size = 0;
        while (count < this.#waiting.length && (count === 0 || size + this.#waiting[count]!.rows <= MAX_ROWS_PER_STORE)) size += this.#waiting[count++]!.rows;
        const group = this.#waiting.splice(0, count);
        const storing = setInterval(() => { for (const { message } of group) message.working(); }, this.#queue.settings.ackWaitMs / 3);
        try {
          const checked = await this.#recheck(group);
          if (checked) await this.#write(checked);
        } finally {
          clearInterval(storing);
        }
      }
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** Each message's rows checked again, each against its own batch's source (they need the database: the source's vehicles); undefined when it could not be asked. */
  async #recheck(group: readonly Taken[]): Promise<Checked[] | undefined> {
    const now = this.#clock.now();
    try {
      return await Promise.all(group.map(async (taken) => {
        const checked = await Promise.all(taken.batches.map((b) => recheckQueuedRows(this.#store, b.source, b.rows, now)));
        const refused = checked.flatMap((c) => c.refused);
        if (refused.length > 0) this.#refused(taken, refused);
        return { message: taken.message, rows: checked.flatMap((c) => c.rows) };
      }));
    } catch (error) {
      for (const { message } of group) this.#failed(message, error);
      return undefined;
    }
  }

  #refused({ message, batches, rows }: Taken, refused: readonly QueuedRowRefusal[]): void {
    for (const { kind } of refused) this.#metrics?.rejected.inc({ reason: kind });
    // The reasons name the source each refused row was checked against.
    this.#logger.error({
      subject: message.subject, seq: message.seq, sources: batches.length, rows, refused: refused.length,
      first: refused.slice(0, REFUSALS_LOGGED).map(({ vin, ts, reason }) => ({ vin, ts, reason })),
    }, 'queued records refused by the writers\' checks: not stored (the queue is not trusted; docs/scaling.md)');
  }

  async #write(group: readonly Checked[]): Promise<void> {
    try {
      await storeTelemetryRows(this.#store, group.flatMap((g) => g.rows), this.#clock.now(), this.#intake);
    } catch (error) {
      // One bad message must not hold the others back: alone, each fails or succeeds by itself.
      if (group.length > 1 && classifyStoreError(error) !== 'unavailable') {
        for (const one of group) await this.#write([one]);
        return;
      }
      if (group.length === 1 && classifyStoreError(error) !== 'unavailable' && group[0]!.message.info.deliveryCount >= ROW_BY_ROW_AFTER) {
        return this.#writeRowByRow(group[0]!);
      }
      for (const { message } of group) this.#failed(message, error);
      return;
    }
    for (const { message, rows } of group) this.#stored(message, rows.length);
  }

  #stored(message: JsMsg, rows: number): void {
    if (this.#logStored) this.#logger.debug({ seq: message.seq, id: message.headers?.get('Nats-Msg-Id'), rows }, 'queued telemetry stored');
    message.ack();
    this.#metrics?.stored.inc(rows);
    this.#metrics?.storedMessages.inc();
  }

  /**
   * A message that keeps failing for a reason other than the database being away: each row on
   * its own. A row the database refuses as invalid data is logged and left out; if any row fails
   * otherwise, the message is delivered again later, as a whole (rows stored meanwhile are kept
   * as they are when it comes back).
   */
  async #writeRowByRow({ message, rows }: Checked): Promise<void> {
    let stored = 0;
    for (const row of rows) {
      try {
        await storeTelemetryRows(this.#store, [row], this.#clock.now(), this.#intake);
        stored += 1;
      } catch (error) {
        if (classifyStoreError(error) !== 'bad-input') return this.#failed(message, error);
        this.#logger.error({ err: error, vin: row.vin, ts: row.ts }, 'a queued record the database refuses as invalid data: left out, the rest of its message stored');
        this.#metrics?.dropped.inc();
      }
    }
    this.#stored(message, stored);
  }

  #failed(message: JsMsg, error: unknown): void {
    this.#metrics?.storeFailures.inc();
    const deliveries = message.info.deliveryCount;
    // Once at the first failure, then now and then: a message stuck for another reason than an outage needs a person.
    if (deliveries === 1 || deliveries % 50 === 0) {
      this.#logger[deliveries === 1 ? 'warn' : 'error']({ err: error, seq: message.seq, deliveries }, 'telemetry from the queue not stored; it will be delivered again');
    }
    message.nak(Math.min(30_000, 1000 * 2 ** Math.min(deliveries - 1, 5)));
  }

  /** Takes no more messages, and waits for the store under way; what is left unacknowledged goes to another writer. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#messages?.close();
    await this.#consuming;
    await this.#draining;
  }
}
