/**
 * What travels through the ingest queue: checked telemetry rows as JSON, one message per
 * partition and at most MAX_MESSAGE_BYTES, with an id made of the (VIN, instant) keys it holds.
 * The same rows always make the same messages with the same ids, so a batch sent again (a retry
 * after a timeout, an automaker resending after a 503) is recognised by the stream as a duplicate
 * within its window, and by storage after it (first record of a (VIN, second) wins either way).
 */
import { createHash } from 'node:crypto';
import { vinPartition } from '../domain/vin-partition.js';
import type { TelemetryRow } from '../store/telemetry-queries.js';
import { MAX_MESSAGE_BYTES, subjectOf } from './ingest-streams.js';

export interface OutgoingMessage {
  readonly subject: string;
  readonly id: string;
  readonly body: Uint8Array;
  readonly records: number;
}

const byVinThenInstant = (a: TelemetryRow, b: TelemetryRow) => (a.vin < b.vin ? -1 : a.vin > b.vin ? 1 : a.ts - b.ts);

/** The messages that carry `rows`, split by partition, then by size. */
export function queueMessages(rows: readonly TelemetryRow[], now: number, partitions: number): OutgoingMessage[] {
  const byPartition = new Map<number, TelemetryRow[]>();
  for (const row of rows) {
    const partition = vinPartition(row.vin, partitions);
    let list = byPartition.get(partition);
    if (!list) byPartition.set(partition, (list = []));
    list.push(row);
  }
  const messages: OutgoingMessage[] = [];
  for (const [partition, list] of byPartition) {
    list.sort(byVinThenInstant);
    let chunk: string[] = [];
    let keys = createHash('sha256');
    let size = 0;
    const flush = () => {
      if (chunk.length === 0) return;
      messages.push({
        subject: subjectOf(partition),
        id: `${partition}-${keys.digest('base64url')}`,
        body: Buffer.from(`{"at":${now},"rows":[${chunk.join(',')}]}`),
        records: chunk.length,
      });
      chunk = [];
      keys = createHash('sha256');
      size = 0;
    };
    for (const row of list) {
      const json = JSON.stringify(row);
      if (size + json.length + 64 > MAX_MESSAGE_BYTES) flush();
      chunk.push(json);
      keys.update(`${row.vin}@${row.ts};`);
      size += json.length + 1;
    }
    flush();
  }
  return messages;
}

/** The rows of a message a writer took; undefined when it is not one this service wrote. */
export function decodeQueueMessage(body: Uint8Array): TelemetryRow[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  const rows = (parsed as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) return undefined;
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) return undefined;
    const { vin, ts, received_at } = row as Record<string, unknown>;
    if (typeof vin !== 'string' || !Number.isSafeInteger(ts) || !Number.isSafeInteger(received_at)) return undefined;
  }
  return rows as TelemetryRow[];
}
