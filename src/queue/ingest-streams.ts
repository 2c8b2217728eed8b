/**
 * The JetStream streams of the ingest queue and their writers' consumer. Telemetry is split by
 * VIN over `partitions` streams, each with its own RAFT leader, so a cluster spreads the
 * publishing load; writers need no order within a stream (storage keeps the first record of a
 * (VIN, second) and trip detection rewinds for late ones).
 *
 * Work-queue retention: a message is deleted once a writer acknowledged it, so what a stream
 * holds is exactly what is not yet stored, and its size limit bounds the backlog. When it is
 * full, new publishes are refused (discard new): the edge answers 503 and the sender keeps its
 * data, instead of the queue dropping the oldest records nobody has stored.
 */
import {
  AckPolicy, DiscardPolicy, RetentionPolicy, StorageType,
  type ConsumerConfig, type JetStreamManager, type StreamConfig, type StreamInfo,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface IngestQueueSettings {
  /** NATS server URLs (nats://host:4222), any of the cluster. */
  readonly servers: readonly string[];
  /** Streams the VINs are split over; fixed for a deployment's life (see docs/scaling.md). */
  readonly partitions: number;
  /** Copies of each stream on different servers: 3 on a cluster, so one lost server loses nothing. */
  readonly replicas: number;
  /** The backlog all streams together may hold, bytes; past it publishes are refused. */
  readonly maxBytes: number;
  /** Messages older than this are dropped unstored: the telemetry retention, past which storage would drop them too. */
  readonly maxAgeMs: number;
  /** How long an ingest request waits for the queue's acknowledgement, retries included, before answering 503. */
  readonly publishTimeoutMs: number;
  /** A message a writer took but did not acknowledge in this time goes to another writer. */
  readonly ackWaitMs: number;
  /** How this process authenticates to the servers; undefined: it does not (or with credentials in the URLs). */
  readonly auth?: QueueAuth | undefined;
  /** TLS towards the servers beyond the defaults (tls:// URLs, system CAs). */
  readonly tls?: QueueTls | undefined;
}

/** One way of authenticating to NATS; the secrets come from the environment only (src/config/). */
export type QueueAuth =
  | { readonly kind: 'password'; readonly user: string; readonly password: string }
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'nkey'; readonly seed: string }
  | { readonly kind: 'creds'; readonly file: string };

export interface QueueTls {
  readonly caFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

export const STREAM_PREFIX = 'TELEMATICS_INGEST_';
const SUBJECT_PREFIX = 'telematics.ingest.';
/** The writers' shared durable consumer on every stream. */
export const WRITERS_CONSUMER = 'writers';
/** Publishes of one message retried within this window are recognised as one. */
const DUPLICATE_WINDOW_MS = 120_000;
/** A message larger than a server's default max_payload (1 MB) would be refused. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

export const streamName = (partition: number) => `${STREAM_PREFIX}${partition}`;
export const subjectOf = (partition: number) => `${SUBJECT_PREFIX}${partition}`;

function streamConfig(settings: IngestQueueSettings, partition: number): Partial<StreamConfig> & { name: string } {
  return {
    name: streamName(partition),
    subjects: [subjectOf(partition)],
    retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.New,
    storage: StorageType.File,
    num_replicas: settings.replicas,
    max_bytes: Math.max(MAX_MESSAGE_BYTES * 4, Math.floor(settings.maxBytes / settings.partitions)),
    max_age: nanos(settings.maxAgeMs),
    max_msg_size: MAX_MESSAGE_BYTES * 2,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  };
}

function writersConfig(settings: IngestQueueSettings): Partial<ConsumerConfig> {
  return {
    durable_name: WRITERS_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(settings.ackWaitMs),
    max_deliver: -1,
    max_ack_pending: 256,
  };
}

/**
 * Creates the streams and their writers' consumer where missing, and brings the limits of
 * existing ones to the settings (the first process to start creates them; the others find them).
 * A stream left over from a larger partition count is kept: writers drain every stream they find.
 */
export async function ensureIngestStreams(jsm: JetStreamManager, settings: IngestQueueSettings, logger: Logger, formingMs = CLUSTER_FORMING_MS): Promise<void> {
  await whileClusterForms(() => ensureIngestStreamsOnce(jsm, settings, logger), logger, formingMs);
}

/** How long a start waits for a JetStream cluster that cannot place streams yet. */
const CLUSTER_FORMING_MS = 30_000;
const CLUSTER_RETRY_MS = 500;
/**
 * What a JetStream cluster answers while its servers are still finding each other (no meta
 * leader, too few peers known for the replicas asked): it places the streams once it has
 * formed, so a process started with it waits rather than exiting.
 */
const FORMING = /no suitable peers for placement|temporarily unavailable/i;

/** Runs `op` (idempotent) again while the cluster is forming, up to `formingMs`; any other error at once. */
export async function whileClusterForms<T>(op: () => Promise<T>, logger: Logger, formingMs: number, retryMs = CLUSTER_RETRY_MS): Promise<T> {
  const giveUpAt = Date.now() + formingMs;
  let told = false;
  for (;;) {
    try {
      return await op();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!FORMING.test(message) || Date.now() + retryMs > giveUpAt) throw error;
      if (!told) logger.warn({ reason: message }, 'ingest queue: the JetStream cluster cannot place streams yet; waiting for it to form');
      told = true;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}

async function ensureIngestStreamsOnce(jsm: JetStreamManager, settings: IngestQueueSettings, logger: Logger): Promise<void> {
  for (let partition = 0; partition < settings.partitions; partition++) {
    const wanted = streamConfig(settings, partition);
    const existing = await jsm.streams.info(wanted.name).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (!existing) {
      await jsm.streams.add(wanted);
      logger.info({ stream: wanted.name, replicas: settings.replicas }, 'ingest queue stream created');
    } else if (existing.config.max_bytes !== wanted.max_bytes || existing.config.max_age !== wanted.max_age || existing.config.num_replicas !== wanted.num_replicas) {
      await jsm.streams.update(wanted.name, { max_bytes: wanted.max_bytes, max_age: wanted.max_age, num_replicas: wanted.num_replicas });
      logger.info({ stream: wanted.name }, 'ingest queue stream limits updated');
    }
    await ensureWritersConsumer(jsm, wanted.name, settings);
  }
}

export async function ensureWritersConsumer(jsm: JetStreamManager, stream: string, settings: IngestQueueSettings): Promise<void> {
  const wanted = writersConfig(settings);
  const existing = await jsm.consumers.info(stream, WRITERS_CONSUMER).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  if (!existing) await jsm.consumers.add(stream, wanted);
  else if (existing.config.ack_wait !== wanted.ack_wait) await jsm.consumers.update(stream, WRITERS_CONSUMER, { ack_wait: wanted.ack_wait });
}

/** Every ingest stream on the server, this deployment's partition count or not. */
export async function listIngestStreams(jsm: JetStreamManager): Promise<string[]> {
  const names: string[] = [];
  for await (const name of jsm.streams.names()) if (name.startsWith(STREAM_PREFIX)) names.push(name);
  return names.sort();
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 10059 || code === 10014 || /not found/i.test(String((error as Error).message));
}

/** A replica the leader has not heard from for this long does not count toward the quorum. */
const PEER_SILENT_NS = 5_000_000_000;

/**
 * A stream can acknowledge only with a leader and a majority of its replicas current: a leader
 * that lost its followers still answers for a while before it steps down, so a leader alone is
 * not enough. A stream on a single server (no cluster information) has its quorum when it answers.
 */
export function hasQuorum(info: StreamInfo): boolean {
  const cluster = info.cluster;
  if (!cluster || cluster.replicas === undefined && (cluster.leader ?? '') !== '') return true;
  if ((cluster.leader ?? '') === '') return false;
  const replicas = info.config.num_replicas;
  const current = 1 + (cluster.replicas ?? []).filter((peer) => peer.current && !peer.offline && peer.active < PEER_SILENT_NS).length;
  return current >= Math.floor(replicas / 2) + 1;
}
