/**
 * What travels through the ingest queue: checked telemetry rows as JSON with the source that
 * handed them to the intake (an automaker, a tracker), one message per partition and at most
 * MAX_MESSAGE_BYTES, with an id made of the source and the (VIN, instant) keys it holds.
 * The same rows always make the same messages with the same ids, so a batch sent again (a retry
 * after a timeout, an automaker resending after a 503) is recognised by the stream as a duplicate
 * within its window, and by storage after it (first record of a (VIN, second) wins either way).
 */
import { createHash } from 'node:crypto';
import { vinPartition } from '../domain/vin-partition.js';
import { isValidVin } from '../domain/vin.js';
import type { TelemetrySource } from '../intake/telemetry-source.js';
import type { TelemetryRow } from '../store/telemetry-queries.js';
import { MAX_MESSAGE_BYTES, subjectOf } from './ingest-streams.js';

export interface OutgoingMessage {
  readonly subject: string;
  readonly id: string;
  readonly body: Uint8Array;
  readonly records: number;
}

const byVinThenInstant = (a: TelemetryRow, b: TelemetryRow) => (a.vin < b.vin ? -1 : a.vin > b.vin ? 1 : a.ts - b.ts);

/** The messages that carry `rows` of `source`, split by partition, then by size. */
export function queueMessages(rows: readonly TelemetryRow[], now: number, partitions: number, source?: TelemetrySource): OutgoingMessage[] {
  const sourceJson = source === undefined ? '' : `"source":${JSON.stringify(source)},`;
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
    const newKeys = () => createHash('sha256').update(sourceJson);
    let keys = newKeys();
    let size = 0;
    const flush = () => {
      if (chunk.length === 0) return;
      messages.push({
        subject: subjectOf(partition),
        id: `${partition}-${keys.digest('base64url')}`,
        body: Buffer.from(`{"at":${now},${sourceJson}"rows":[${chunk.join(',')}]}`),
        records: chunk.length,
      });
      chunk = [];
      keys = newKeys();
      size = 0;
    };
    for (const row of list) {
      const json = JSON.stringify(row);
      if (size + json.length + sourceJson.length + 64 > MAX_MESSAGE_BYTES) flush();
      chunk.push(json);
      keys.update(`${row.vin}@${row.ts};`);
      size += json.length + 1;
    }
    flush();
  }
  return messages;
}

/**
 * A message as a writer took it: the source it names (undefined in a message of a version that
 * named none) and its rows, still unchecked: anyone who may publish to the subjects could have
 * written them, so the writer checks each row again (intake/recheck-queued-rows.ts).
 */
export interface QueuedBatch {
  readonly source: TelemetrySource | undefined;
  readonly rows: readonly unknown[];
}

/** A message a writer took, read; undefined when it is not one this service writes (not JSON, no rows, a source of no known shape). */
export function decodeQueueMessage(body: Uint8Array): QueuedBatch | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { rows, source } = parsed as { rows?: unknown; source?: unknown };
  if (!Array.isArray(rows)) return undefined;
  if (source === undefined) return { source: undefined, rows };
  const known = sourceOf(source);
  return known === undefined ? undefined : { source: known, rows };
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
