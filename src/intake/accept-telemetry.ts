/**
 * The one way telemetry enters the service, whatever its source (an automaker's HTTP push today,
 * trackers tomorrow): each record is checked (D8), records of vehicles the source may not write
 * for are refused, the rest are stored once per (VIN, instant), trip detection is told to go
 * back where a record arrived behind it, and the events a stored record implies (ignition,
 * charging) are written in the same transaction as the record. Sources only translate their wire
 * format into IncomingRecords.
 */
import { isEventfulValue, recordEvent, type EventDraft } from '../domain/events.js';
import { checkIncomingRecord, type IncomingRecord, type TelemetryRecord } from '../domain/telemetry-record.js';
import type { Db, StoreConnection } from '../store/connection.js';
import { appendEvents } from '../store/event-appends.js';
import { insertTelemetry, insertTelemetryRows, toTelemetryRow, type StoredEventValue, type TelemetryRow } from '../store/telemetry/insert.js';
import { ensureTelemetryPartitions } from '../store/telemetry/partitions.js';
import { markTripRewinds } from '../store/trips-queries.js';
import { companiesOfVins } from '../store/vehicles-queries.js';
import { vehiclesOf, type TelemetrySource } from './telemetry-source.js';

export interface Rejection {
  /** Position of the record in what the source handed over. */
  readonly index: number;
  readonly reason: string;
}

export interface IntakeResult {
  readonly accepted: number;
  readonly rejected: readonly Rejection[];
}

export interface IntakeSettings {
  /** How long records are kept, ms; older ones are refused at the door. */
  readonly retentionMs: number;
  /** Trip detection leaves records this young for later; older ones may need it to rewind. */
  readonly tripLatenessMs: number;
  /**
   * Where checked records go: the ingest queue (`--ingest-queue`), whose writers store them later
   * with `storeTelemetryRows`. Absent: stored here, before the call returns.
   */
  readonly queue?: TelemetrySink;
}

/**
 * Records checked by the intake, on their way to storage, with the source each group came from
 * (the writers check the rows against it again: intake/recheck-queued-rows.ts); `write` resolves
 * once they are durable.
 */
export interface TelemetrySink {
  write(batches: readonly SourceRows[], now: number): Promise<void>;
}

export interface SourceRows {
  readonly source: TelemetrySource;
  readonly rows: readonly TelemetryRow[];
}

export async function acceptTelemetry(
  store: StoreConnection, source: TelemetrySource, records: readonly IncomingRecord[], now: number, settings: IntakeSettings,
): Promise<IntakeResult> {
  return (await acceptTelemetryBatches(store, [{ source, records }], now, settings))[0]!;
}

/** What one source hands over in a group of sources stored together. */
export interface IntakeBatch {
  readonly source: TelemetrySource;
  readonly records: readonly IncomingRecord[];
}

/**
 * Several sources' records at once (the gateway groups the packets of trackers that arrive
 * together): each batch is checked against its own source and gets its own result, and all of
 * them are stored (or queued) together. Either all are durable or the call fails.
 */
export async function acceptTelemetryBatches(
  store: StoreConnection, batches: readonly IntakeBatch[], now: number, settings: IntakeSettings,
): Promise<IntakeResult[]> {
  const seen = new Set<string>();
  const rows: TelemetryRow[] = [];
  const bySource: SourceRows[] = [];
  const results: IntakeResult[] = [];
  for (const { source, records } of batches) {
    const sourceRows: TelemetryRow[] = [];
    bySource.push({ source, rows: sourceRows });
    const rejected: Rejection[] = [];
    const checked: { index: number; record: TelemetryRecord }[] = [];
    records.forEach((input, index) => {
      const result = checkIncomingRecord(input, now, now - settings.retentionMs);
      if (result.ok) checked.push({ index, record: result.record });
      else rejected.push({ index, reason: result.reason });
    });
    const vehicles = await vehiclesOf(store, source, settings.queue !== undefined);
    let accepted = 0;
    for (const { index, record } of checked) {
      if (!vehicles.has(record.vin)) {
        rejected.push({ index, reason: vehicles.refusal(record.vin) });
        continue;
      }
      accepted += 1;
      const key = `${record.vin}@${record.ts}`;
      if (seen.has(key)) continue; // the same instant twice in one call: the first one counts
      seen.add(key);
      const row = toTelemetryRow(record, now);
      rows.push(row);
      sourceRows.push(row);
    }
    rejected.sort((a, b) => a.index - b.index);
    results.push({ accepted, rejected });
  }
  if (settings.queue) await settings.queue.write(bySource.filter((b) => b.rows.length > 0), now);
  else await storeTelemetryRows(store, rows, now, settings);
  return results;
}

/**
 * The storage half of the intake, for rows it has checked (here, or at the queue's edge before a
 * writer took them): one partition check, one insert (a (VIN, instant) already stored is kept),
 * the events stored rows imply, and one trip-rewind mark. `now` is when they are stored: a row
 * that waited in the queue while trip detection passed its instant makes detection go back.
 * Rows past retention by now are dropped, as the retention sweep would drop them.
 */
export async function storeTelemetryRows(store: StoreConnection, given: readonly TelemetryRow[], now: number, settings: IntakeSettings): Promise<void> {
  const rows = given.filter((r) => r.ts >= now - settings.retentionMs);
  if (rows.length === 0) return;
  await ensureTelemetryPartitions(store, rows.map((r) => r.ts));
  await storeRecords(store, rows, now);
  // Trip detection may already have passed these instants; if so it must go back to them.
  const earliest = new Map<string, number>();
  for (const r of rows) if (r.ts <= now - settings.tripLatenessMs && !(earliest.get(r.vin)! <= r.ts)) earliest.set(r.vin, r.ts);
  await markTripRewinds(store.db, store.capabilities, earliest);
}

/**
 * Most batches imply no event: they are stored as before, in one statement. A batch with an
 * eventful record stores its rows and their events in one transaction, the events derived from
 * the rows this call stored (a resent or conflicting record changes nothing, and makes no
 * second event).
 */
async function storeRecords(store: StoreConnection, rows: readonly TelemetryRow[], now: number): Promise<void> {
  if (!rows.some((r) => isEventfulValue(r.event))) return insertTelemetry(store, rows, now);
  await store.db.transaction().execute(async (trx) => {
    const stored = await insertTelemetryRows(trx, store.capabilities, rows, now, true);
    await appendEvents(trx, await impliedEvents(trx, stored.filter((r) => isEventfulValue(r.event))), now);
  });
}

async function impliedEvents(db: Db, stored: readonly StoredEventValue[]): Promise<EventDraft[]> {
  const companies = await companiesOfVins(db, [...new Set(stored.map((r) => r.vin))]);
  const events: EventDraft[] = [];
  for (const r of stored) {
    const company = companies.get(r.vin);
    const event = company === undefined ? undefined : recordEvent(company, r.vin, r.ts, r.event);
    if (event) events.push(event);
  }
  return events;
}
