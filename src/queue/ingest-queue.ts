/**
 * The connection to the ingest queue (NATS JetStream, `--ingest-queue`) and its edge side: the
 * `TelemetrySink` an ingest request or the tracker gateway hands checked rows to. `write`
 * resolves only once the stream acknowledged every message (replicated on its quorum); a
 * message not acknowledged is sent again with the same id until the publish timeout, then the
 * caller gets a 503 with Retry-After. Never an answer of success for data that is not durable.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { errors, ServiceError } from '../domain/errors.js';
import { settleWithin } from '../domain/settle-within.js';
import type { SourceRows, TelemetrySink } from '../intake/accept-telemetry.js';
import { ensureIngestStreams, hasQuorum, streamName, type IngestQueueSettings } from './ingest-streams.js';
import { connectFailure, connectOptions } from './queue-connection.js';
import { queueMessages, type OutgoingMessage } from './queue-message.js';
import type { QueueMetrics } from './queue-metrics.js';

/** One publish waits this long for its acknowledgement before it is sent again. */
const ATTEMPT_TIMEOUT_MS = 2000;
const RETRY_PAUSE_MS = [100, 250, 500, 1000];
/** What 503 answers ask the sender to wait: a full queue drains slower than a leader is elected. */
const RETRY_AFTER_UNAVAILABLE_S = 5;
const RETRY_AFTER_FULL_S = 30;
/** A readiness answer is reused this long, so probes do not each cost a request per stream. */
const READY_CACHE_MS = 1000;
const READY_TIMEOUT_MS = 2000;

export class IngestQueue implements TelemetrySink {
  readonly settings: IngestQueueSettings;
  readonly connection: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly metrics: QueueMetrics | undefined;
  readonly #logger: Logger;
  /** Each acknowledgement logged at debug (stream, sequence, message id): what ties a record answered 200 to where the stream put it. */
  readonly #logAcks: boolean;
  #ready: { at: number; answer: Promise<boolean> } | undefined;

  private constructor(settings: IngestQueueSettings, connection: NatsConnection, jsm: JetStreamManager, logger: Logger, metrics: QueueMetrics | undefined) {
    this.settings = settings;
    this.connection = connection;
    this.js = jetstream(connection);
    this.jsm = jsm;
    this.#logger = logger;
    this.#logAcks = logger.isLevelEnabled('debug');
    this.metrics = metrics;
    metrics?.watch(jsm);
  }

  /** Connects (reconnecting for ever after the first success) and makes sure the streams exist. */
  static async open(settings: IngestQueueSettings, logger: Logger, metrics?: QueueMetrics): Promise<IngestQueue> {
    let connection: NatsConnection;
    try {
      connection = await connect(connectOptions(settings));
    } catch (error) {
      throw connectFailure(error, settings, settings.servers.map(withoutCredentials).join(', '));
    }
    try {
      const jsm = await jetstreamManager(connection, { timeout: 5000 });
      await ensureIngestStreams(jsm, settings, logger);
      const queue = new IngestQueue(settings, connection, jsm, logger, metrics);
      queue.#watch();
      if (settings.replicas === 1) logger.warn('ingest queue streams keep one copy (--ingest-queue-replicas 1): losing that NATS server\'s disk loses the records queued on it');
      logger.info({ servers: settings.servers.map(withoutCredentials), partitions: settings.partitions, replicas: settings.replicas }, 'ingest queue ready');
      return queue;
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  async write(batches: readonly SourceRows[], now: number): Promise<void> {
    // One message per partition for the whole call (however many sources), each row with its own source.
    const messages = queueMessages(batches, now, this.settings.partitions);
    if (messages.length === 0) return;
    const deadline = Date.now() + this.settings.publishTimeoutMs;
    const duplicate = await Promise.all(messages.map((message) => this.#publish(message, deadline)));
    messages.forEach((message, i) => (duplicate[i] ? this.metrics?.duplicates : this.metrics?.queued)?.inc(message.records));
  }

  /** Resolves once the stream holds the message; true when it already did (the same id within its window). */
  async #publish(message: OutgoingMessage, deadline: number): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      const left = deadline - Date.now();
      try {
        const ack = await this.js.publish(message.subject, message.body, { msgID: message.id, timeout: Math.max(100, Math.min(ATTEMPT_TIMEOUT_MS, left)) });
        if (this.#logAcks) this.#logger.debug({ stream: ack.stream, seq: ack.seq, id: message.id, duplicate: ack.duplicate }, 'ingest queue acknowledged');
        return ack.duplicate;
      } catch (error) {
        if (isStreamFull(error)) {
          this.metrics?.refused.inc({ reason: 'full' });
          throw new ServiceError(errors.unavailable, {}, RETRY_AFTER_FULL_S);
        }
        const pause = RETRY_PAUSE_MS[Math.min(attempt, RETRY_PAUSE_MS.length - 1)]!;
        if (Date.now() + pause >= deadline) {
          this.metrics?.refused.inc({ reason: 'unavailable' });
          this.#logger.warn({ subject: message.subject, err: (error as Error).message, attempts: attempt + 1 }, 'ingest queue did not acknowledge: answering 503');
          throw new ServiceError(errors.unavailable, {}, RETRY_AFTER_UNAVAILABLE_S);
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /**
   * Ready when every stream this process publishes to has a leader, i.e. its quorum: without one
   * no publish can be acknowledged, so a load balancer should send ingest elsewhere.
   */
  ready(): Promise<boolean> {
    const now = Date.now();
    if (this.#ready && now - this.#ready.at < READY_CACHE_MS) return this.#ready.answer;
    const answer = this.#checkReady();
    this.#ready = { at: now, answer };
    return answer;
  }

  async #checkReady(): Promise<boolean> {
    if (this.connection.isClosed()) return false;
    const checks = Array.from({ length: this.settings.partitions }, async (_, partition) => hasQuorum(await this.jsm.streams.info(streamName(partition))));
    return settleWithin(Promise.all(checks).then((all) => all.every(Boolean)), READY_TIMEOUT_MS, false);
  }

  /** Logs the connection's losses and returns, once each. */
  #watch(): void {
    void (async () => {
      for await (const status of this.connection.status()) {
        if (status.type === 'disconnect') this.#logger.warn({ server: status.server }, 'ingest queue connection lost; reconnecting');
        else if (status.type === 'reconnect') this.#logger.info({ server: status.server }, 'ingest queue connection back');
        // Credentials revoked or expired while running: the client keeps trying, this says why it fails.
        else if (status.type === 'error') this.#logger.error({ err: (status as { error?: Error }).error?.message }, 'ingest queue connection error');
      }
    })();
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain().catch(() => this.connection.close());
  }
}

/** A work-queue stream at its size limit refuses new messages (discard new). */
function isStreamFull(error: unknown): boolean {
  return /maximum (bytes|messages) exceeded|resource limits exceeded/i.test(String((error as Error | undefined)?.message));
}

/** A server as logged: whatever stands before `@` (user and password, or a token) masked, with a scheme or without (`host:port` is allowed too). */
export function withoutCredentials(url: string): string {
  return url.replace(/^((?:[a-z]+:\/\/)?)[^@/]*@/i, '$1***@');
}
