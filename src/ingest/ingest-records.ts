/**
 * Ingest of one batch pushed by an automaker: each record is checked (D8), records of VINs not
 * registered to that OEM are refused, the rest are stored once per (VIN, instant).
 */
import { checkTelemetryRecord, type TelemetryRecord } from '../domain/telemetry-record.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { insertTelemetry, toTelemetryRow, vinsOfOem } from '../store/telemetry-queries.js';
import { ensureTelemetryPartitions } from '../store/telemetry-storage.js';
import { markTripRewinds } from '../store/trips-queries.js';

export interface IngestRejection {
  readonly index: number;
  readonly reason: string;
}

export interface IngestResult {
  readonly accepted: number;
  readonly rejected: readonly IngestRejection[];
}

export interface IngestSettings {
  /** How long records are kept, ms; older ones are refused at the door. */
  readonly retentionMs: number;
  /** Trip detection leaves records this young for later; older ones may need it to rewind. */
  readonly tripLatenessMs: number;
}

export async function ingestRecords(
  store: StoreConnection, oem: string, records: readonly unknown[], now: number, settings: IngestSettings,
): Promise<IngestResult> {
  const rejected: IngestRejection[] = [];
  const checked: { index: number; record: TelemetryRecord }[] = [];
  records.forEach((raw, index) => {
    const result = checkTelemetryRecord(raw, now, now - settings.retentionMs);
    if (result.ok) checked.push({ index, record: result.record });
    else rejected.push({ index, reason: result.reason });
  });

  // Every VIN of the OEM, from the registry cache: an automaker pushes the same fleet all day.
  const owned = await cachedRegistryRead(store, `oem-vins:${oem}`, () => vinsOfOem(store.db, oem));
  const seen = new Set<string>();
  const rows = [];
  let accepted = 0;
  for (const { index, record } of checked) {
    if (!owned.has(record.vin)) {
      rejected.push({ index, reason: `VIN ${record.vin} is not registered to OEM ${oem}` });
      continue;
    }
    accepted += 1;
    const key = `${record.vin}@${record.ts}`;
    if (seen.has(key)) continue; // the same instant twice in one batch: the first one counts
    seen.add(key);
    rows.push(toTelemetryRow(record, now));
  }
  await ensureTelemetryPartitions(store, rows.map((r) => r.ts));
  await insertTelemetry(store, rows);
  // Trip detection may already have passed these instants; if so it must go back to them.
  const earliest = new Map<string, number>();
  for (const r of rows) if (r.ts <= now - settings.tripLatenessMs && !(earliest.get(r.vin)! <= r.ts)) earliest.set(r.vin, r.ts);
  await markTripRewinds(store.db, store.capabilities, earliest);
  rejected.sort((a, b) => a.index - b.index);
  return { accepted, rejected };
}
