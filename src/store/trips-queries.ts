import { sql, type Selectable } from 'kysely';
import { emptyTripState, type DetectedTrip, type TripDetectorState } from '../domain/trip-detection.js';
import { tripFacts } from '../domain/trip-record.js';
import type { Db } from './connection.js';
import type { DialectCapabilities } from './dialect.js';
import { givenRows } from './given-rows.js';
import type { TripsTable } from './schema.js';
import { recordsAfter } from './telemetry/read.js';

export type TripRow = Selectable<TripsTable>;

/** Records in (after, upTo], ascending, with what trip detection reads. */
export function readTripInputs(db: Db, vin: string, after: number, upTo: number, limit: number) {
  return recordsAfter(db, vin, after, upTo).select(['ts', 'speed', 'latitude', 'longitude', 'odometer', 'fuel_level']).limit(limit).execute();
}

export async function countTripInputs(db: Db, vin: string, after: number, upTo: number): Promise<number> {
  const row = await db.selectFrom('telemetry').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('vin', '=', vin).where('ts', '>', after).where('ts', '<=', upTo).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The VIN's cursor, created if missing, locked for this transaction. On PostgreSQL a cursor held
 * by another instance is skipped (undefined), so each VIN is detected by one instance at a time.
 */
export interface ClaimedTripCursor {
  readonly processedUntil: number;
  readonly rewindFrom: number | null;
  readonly state: TripDetectorState;
}

/**
 * The VIN's cursor, created if missing, locked for this transaction; undefined when another
 * instance holds it. The detector's state is stored as JSON, written and read only here.
 */
export async function claimTripCursor(db: Db, capabilities: DialectCapabilities, vin: string, now: number): Promise<ClaimedTripCursor | undefined> {
  await db.insertInto('trip_cursors').values({ vin, processed_until: -1, rewind_from: null, state: JSON.stringify(emptyTripState()), open_trip_last_ts: null, updated_at: now })
    .onConflict((oc) => oc.column('vin').doNothing()).execute();
  let q = db.selectFrom('trip_cursors').select(['processed_until', 'rewind_from', 'state']).where('vin', '=', vin);
  if (capabilities.skipLocked) q = q.forUpdate().skipLocked();
  const row = await q.executeTakeFirst();
  if (!row) return undefined;
  return {
    processedUntil: Number(row.processed_until), rewindFrom: row.rewind_from === null ? null : Number(row.rewind_from),
    state: JSON.parse(row.state) as TripDetectorState,
  };
}

export async function saveTripCursor(db: Db, vin: string, processedUntil: number, state: TripDetectorState, now: number): Promise<void> {
  await db.updateTable('trip_cursors').set({
    processed_until: processedUntil, rewind_from: null, state: JSON.stringify(state),
    open_trip_last_ts: state.trip === null ? null : state.lastTs, updated_at: now,
  }).where('vin', '=', vin).execute();
}

export interface TripDetectionCandidate {
  vin: string;
  fuel_capacity: number | null;
}

/**
 * Of `vins` (vehicles that changed), those whose trip cursor has work: a rewind asked for, or a
 * record after the cursor (or any, without one) up to `horizon`. One statement, an index probe
 * per vehicle; the cursor is the fence, so a vehicle whose records are all fed, or all younger
 * than the horizon, costs a probe and no transaction.
 */
export function listTripWork(db: Db, vins: readonly string[], horizon: number): Promise<TripDetectionCandidate[]> {
  if (vins.length === 0) return Promise.resolve([]);
  return db.selectFrom('vehicles as v').leftJoin('trip_cursors as c', 'c.vin', 'v.vin')
    .select(['v.vin', 'v.fuel_capacity'])
    .where('v.vin', 'in', [...vins])
    .where((eb) => eb.or([
      eb('c.rewind_from', 'is not', null),
      eb.exists(eb.selectFrom('telemetry as t').select(sql.lit(1).as('one'))
        .whereRef('t.vin', '=', 'v.vin').where('t.ts', '<=', horizon)
        .where((t) => t.or([t('c.processed_until', 'is', null), t('t.ts', '>', t.ref('c.processed_until'))]))),
    ]))
    .execute();
}

/** An open trip's vehicle, with the instant of its last record (where the next page starts). */
export interface OpenTripCandidate extends TripDetectionCandidate {
  readonly lastTs: number;
}

/**
 * The vehicles whose detector holds an open trip with no record since before `quietBefore`: time
 * alone closes those. One page by last record then VIN, after `after`, through the partial index
 * of migration 0020, which holds only cursors with an open trip.
 */
export async function listOpenTripsQuietBefore(
  db: Db, quietBefore: number, after: { lastTs: number; vin: string } | undefined, limit: number,
): Promise<OpenTripCandidate[]> {
  let q = db.selectFrom('trip_cursors as c').innerJoin('vehicles as v', 'v.vin', 'c.vin')
    .select(['v.vin', 'v.fuel_capacity', 'c.open_trip_last_ts']).where('c.open_trip_last_ts', 'is not', null).where('c.open_trip_last_ts', '<', quietBefore);
  if (after) q = q.where((eb) => eb(eb.refTuple('c.open_trip_last_ts', 'c.vin'), '>', eb.tuple(after.lastTs, after.vin)));
  const rows = await q.orderBy('c.open_trip_last_ts').orderBy('c.vin').limit(limit).execute();
  return rows.map((r) => ({ vin: r.vin, fuel_capacity: r.fuel_capacity, lastTs: Number(r.open_trip_last_ts) }));
}

/** Records at or before the cursor arrived late: detection must go back to `ts`. */
export async function markTripRewind(db: Db, capabilities: DialectCapabilities, vin: string, ts: number): Promise<void> {
  await markTripRewinds(db, capabilities, new Map([[vin, ts]]));
}

/** VINs per statement: two parameters each, far under either database's limit. */
const REWIND_CHUNK = 500;

/**
 * `markTripRewind` for many VINs in one statement per 500 (an ingest batch covers many vehicles:
 * one round trip instead of one per VIN). Where writers run concurrently the
 * cursors are locked first in VIN order: two ingest requests updating the same cursors in
 * whatever order their join produced could deadlock, and one of them would fail.
 */
export async function markTripRewinds(db: Db, capabilities: DialectCapabilities, earliestByVin: ReadonlyMap<string, number>): Promise<void> {
  const entries = [...earliestByVin];
  const lockInOrder = capabilities.concurrentWriters ? sql` order by c.vin for update of c` : sql``;
  for (let i = 0; i < entries.length; i += REWIND_CHUNK) {
    const given = givenRows(entries.slice(i, i + REWIND_CHUNK), ([vin, ts]) => [sql`cast(${vin} as varchar(17)) as vin`, sql`cast(${ts} as bigint) as ts`]);
    await sql`
      update trip_cursors set rewind_from = case when rewind_from is null or rewind_from > late.ts then late.ts else rewind_from end
      from (
        select c.vin as vin, l.ts as ts from trip_cursors c join (${given}) as l on c.vin = l.vin
        where c.processed_until >= l.ts${lockInOrder}
      ) as late
      where trip_cursors.vin = late.vin`.execute(db);
  }
}

/** Start of the earliest trip ending at or after `ts`. */
export async function earliestTripEndingFrom(db: Db, vin: string, ts: number): Promise<number | undefined> {
  const row = await db.selectFrom('trips').select((eb) => eb.fn.min<number | string>('start_ts').as('start'))
    .where('vin', '=', vin).where('end_ts', '>=', ts).executeTakeFirst();
  return row?.start === null || row?.start === undefined ? undefined : Number(row.start);
}

/** The end of the VIN's trip that starts at `startTs` (which must exist). */
export async function tripEndOf(db: Db, vin: string, startTs: number): Promise<number> {
  const trip = await db.selectFrom('trips').select('end_ts').where('vin', '=', vin).where('start_ts', '=', startTs).executeTakeFirstOrThrow();
  return Number(trip.end_ts);
}

export async function deleteTripsStartingFrom(db: Db, vin: string, ts: number): Promise<void> {
  await db.deleteFrom('trips').where('vin', '=', vin).where('start_ts', '>=', ts).execute();
}

/** Stores the VIN's trips; a start already stored is kept. Answers the starts this call stored. */
export async function insertTrips(db: Db, vin: string, trips: readonly DetectedTrip[], now: number): Promise<Set<number>> {
  if (trips.length === 0) return new Set();
  const stored = await db.insertInto('trips').values(trips.map((t) => ({ ...tripFacts(vin, t), created_at: now })))
    .onConflict((oc) => oc.columns(['vin', 'start_ts']).doNothing()).returning('start_ts').execute();
  return new Set(stored.map((r) => Number(r.start_ts)));
}

/** The VINs' trips overlapping [start, end], by VIN then start: one query for the whole request. */
export function listTripsOverlapping(db: Db, vins: readonly string[], start: number, end: number): Promise<TripRow[]> {
  return db.selectFrom('trips').selectAll().where('vin', 'in', [...vins]).where('end_ts', '>=', start).where('start_ts', '<=', end)
    .orderBy('vin').orderBy('start_ts').execute();
}

export async function deleteTripsEndedBefore(db: Db, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('trips').where('end_ts', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
