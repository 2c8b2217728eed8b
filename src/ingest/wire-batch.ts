/**
 * POST /ingest/{oem}'s records, from the wire format to the intake and back: each JSON record is
 * read into an IncomingRecord (or refused with the reason automakers see), the intake takes the
 * readable ones, and refusals come back by position in the batch.
 */
import { readWireRecord, type IncomingRecord } from '../domain/telemetry-record.js';
import { acceptTelemetry, type IntakeResult, type IntakeSettings, type Rejection } from '../intake/accept-telemetry.js';
import type { StoreConnection } from '../store/connection.js';

export async function ingestWireBatch(
  store: StoreConnection, oem: string, batch: readonly unknown[], now: number, settings: IntakeSettings,
): Promise<IntakeResult> {
  const records: IncomingRecord[] = [];
  const positions: number[] = [];
  const rejected: Rejection[] = [];
  batch.forEach((raw, index) => {
    const read = readWireRecord(raw);
    if (read.ok) {
      records.push(read.record);
      positions.push(index);
    } else {
      rejected.push({ index, reason: read.reason });
    }
  });
  const result = await acceptTelemetry(store, { kind: 'oem', oem }, records, now, settings);
  for (const r of result.rejected) rejected.push({ index: positions[r.index]!, reason: r.reason });
  rejected.sort((a, b) => a.index - b.index);
  return { accepted: result.accepted, rejected };
}
