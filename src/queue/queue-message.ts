/**
 * What travels through the ingest queue: checked telemetry rows as JSON, grouped by the source
 * that handed them to the intake (an automaker, a tracker), one message per partition for a whole
 * intake call (the gateway's group of many trackers included) and at most MAX_MESSAGE_BYTES:
 * `{"at":…,"batches":[{"source":…,"rows":[…]},…]}`. A message's id is made of each row's source
 * and (VIN, instant) key, so the same rows of the same sources always make the same messages with
 * the same ids: a batch sent again (a retry after a timeout, an automaker resending after a 503)
 * is recognised by the stream as a duplicate within its window, and by storage after it (first
 * record of a (VIN, second) wins either way).
 */
import { createHash } from 'node:crypto';
import { vinPartition } from '../domain/vin-partition.js';
import { isValidVin } from '../domain/vin.js';
import type { SourceRows } from '../intake/accept-telemetry.js';
import type { TelemetrySource } from '../intake/telemetry-source.js';
import type { TelemetryRow } from '../store/telemetry/insert.js';
import { MAX_MESSAGE_BYTES, subjectOf } from './ingest-streams.js';

export interface OutgoingMessage {
  readonly subject: string;
  readonly id: string;
  readonly body: Uint8Array;
  readonly records: number;
}

const byVinThenInstant = (a: TelemetryRow, b: TelemetryRow) => (a.vin < b.vin ? -1 : a.vin > b.vin ? 1 : a.ts - b.ts);
/** Room for the envelope of a message and of one batch in it. */
const MESSAGE_OVERHEAD = 64;
const BATCH_OVERHEAD = 24;
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** The messages that carry the rows of `batches`, split by partition, then by size; each row stays with its own source. */
export function queueMessages(batches: readonly SourceRows[], now: number, partitions: number): OutgoingMessage[] {
  // Partition → source as written in the message → its rows.
  const byPartition = new Map<number, Map<string, TelemetryRow[]>>();
  for (const { source, rows } of batches) {
    const json = JSON.stringify(source);
    for (const row of rows) {
      const partition = vinPartition(row.vin, partitions);
      let sources = byPartition.get(partition);
      if (!sources) byPartition.set(partition, (sources = new Map()));
      let list = sources.get(json);
      if (!list) sources.set(json, (list = []));
      list.push(row);
    }
  }
  const messages: OutgoingMessage[] = [];
  for (const [partition, sources] of byPartition) {
    // Each batch encoded as it closes: one large string made of many is slow to encode at once.
    let chunk: Buffer[] = [];
    let records = 0;
    let keys = createHash('sha256');
    let size = MESSAGE_OVERHEAD;
    const flush = () => {
      if (records === 0) return;
      const body = Buffer.concat([Buffer.from(`{"at":${now},"batches":[`), ...chunk.flatMap((c, i) => (i === 0 ? [c] : [COMMA, c])), CLOSE]);
      messages.push({ subject: subjectOf(partition), id: `${partition}-${keys.digest('base64url')}`, body, records });
      chunk = [];
      records = 0;
      keys = createHash('sha256');
      size = MESSAGE_OVERHEAD;
    };
    // Sorted (sources, then each source's rows), the same rows of the same sources make the same
    // messages and ids whatever order they came in; the id hashes each source before its rows' keys.
    for (const source of [...sources.keys()].sort()) {
      let batch: string[] = [];
      const close = () => {
        if (batch.length > 0) chunk.push(Buffer.from(`{"source":${source},"rows":[${batch.join(',')}]}`));
        batch = [];
      };
      for (const row of sources.get(source)!.sort(byVinThenInstant)) {
        const json = JSON.stringify(row);
        const opening = batch.length === 0 ? source.length + BATCH_OVERHEAD : 0;
        if (size + opening + json.length + 1 > MAX_MESSAGE_BYTES && records > 0) {
          close();
          flush();
        }
        if (batch.length === 0) {
          keys.update(`\n${source}\n`);
          size += source.length + BATCH_OVERHEAD;
        }
        batch.push(json);
        keys.update(`${row.vin}@${row.ts};`);
        size += json.length + 1;
        records += 1;
      }
      close();
    }
    flush();
  }
  return messages;
}

/**
 * Rows of one source in a message a writer took, still unchecked: anyone who may publish to the
 * subjects could have written them, so the writer checks each row again against this source
 * (intake/recheck-queued-rows.ts).
 */
export interface QueuedBatch {
  readonly source: TelemetrySource;
  readonly rows: readonly unknown[];
}

/**
 * A message a writer took, read: its batches; `unsourced` for a message of an edge older than
 * sources (rows and no source: refused, docs/scaling.md "Securing the queue"); `foreign` when it is not
 * one this service writes (not JSON, no batches, a source of no known shape).
 */
export type DecodedMessage =
  | { readonly kind: 'batches'; readonly batches: readonly QueuedBatch[] }
  | { readonly kind: 'unsourced'; readonly rows: number }
  | { readonly kind: 'foreign' };

const FOREIGN: DecodedMessage = { kind: 'foreign' };

export function decodeQueueMessage(body: Uint8Array): DecodedMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return FOREIGN;
  }
  if (typeof parsed !== 'object' || parsed === null) return FOREIGN;
  const { batches, rows, source } = parsed as { batches?: unknown; rows?: unknown; source?: unknown };
  if (batches === undefined && source === undefined && Array.isArray(rows)) return { kind: 'unsourced', rows: rows.length };
  if (!Array.isArray(batches)) return FOREIGN;
  const read: QueuedBatch[] = [];
  for (const batch of batches) {
    if (typeof batch !== 'object' || batch === null) return FOREIGN;
    const known = sourceOf((batch as { source?: unknown }).source);
    const batchRows = (batch as { rows?: unknown }).rows;
    if (known === undefined || !Array.isArray(batchRows)) return FOREIGN;
    read.push({ source: known, rows: batchRows });
  }
  return { kind: 'batches', batches: read };
}

const NAME = /^[\x21-\x7e]{1,128}$/;

function sourceOf(raw: unknown): TelemetrySource | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { kind, oem, protocol, deviceId, vin } = raw as Record<string, unknown>;
  if (kind === 'oem' && typeof oem === 'string' && NAME.test(oem)) return { kind, oem };
  if (kind === 'device' && typeof protocol === 'string' && NAME.test(protocol) && typeof deviceId === 'string' && NAME.test(deviceId) && isValidVin(vin)) {
    return { kind, protocol, deviceId, vin };
  }
  return undefined;
}
