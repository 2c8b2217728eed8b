/** The one statement that stores telemetry (the intake's storage half calls it). */
import { CompiledQuery, sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { TelemetryRecord } from '../../domain/telemetry-record.js';
import type { Db, StoreConnection } from '../connection.js';
import type { TelemetryTable } from '../schema.js';
import type { DialectCapabilities } from '../dialect.js';
import { inTransaction } from '../in-transaction.js';

export type TelemetryRow = Insertable<TelemetryTable>;

/** Rows per INSERT without array parameters: 25 columns × 500 stays far below SQLite's bound-parameter limit. */
const INSERT_CHUNK = 500;

/**
 * Every telemetry column and the PostgreSQL type of its array parameter, as the migrations create
 * them (varchar(17), bigint, double precision per number datapoint, text). `satisfies` keeps this
 * list and schema.ts in step: a column missing or extra here fails to compile; a fresh database's
 * columns are compared with it by test/store/telemetry-columns.test.ts.
 */
export const UNNEST_COLUMN_TYPES = {
  vin: 'varchar',
  ts: 'int8',
  speed: 'float8',
  latitude: 'float8',
  longitude: 'float8',
  heading: 'float8',
  rpm: 'float8',
  odometer: 'float8',
  fuel_level: 'float8',
  range: 'float8',
  left_front_tire_pressure: 'float8',
  right_front_tire_pressure: 'float8',
  left_rear_tire_pressure: 'float8',
  right_rear_tire_pressure: 'float8',
  oil_level: 'float8',
  engine_cooling_temperature: 'float8',
  lv_battery_voltage: 'float8',
  hv_battery_voltage: 'float8',
  hv_battery_soc: 'float8',
  hv_battery_charging_status: 'text',
  seat_belt_status: 'text',
  event: 'text',
  flag: 'text',
  received_at: 'int8',
  position_accuracy_m: 'float8',
} as const satisfies Record<keyof TelemetryTable, 'varchar' | 'int8' | 'float8' | 'text'>;

const UNNEST_COLUMNS = Object.keys(UNNEST_COLUMN_TYPES) as (keyof TelemetryTable)[];

/**
 * The PostgreSQL insert: one array parameter per column, so the text is the same for any batch
 * size (one plan, preparable). pg writes each JS array as an array literal, quoting every element
 * (commas, quotes, backslashes and non-ASCII survive) and writing null/undefined as NULL; numbers
 * go as their shortest round-trip decimal, which float8 parses back to the same double.
 */
export const INSERT_TELEMETRY_UNNEST_SQL =
  `insert into telemetry (${UNNEST_COLUMNS.map((c) => `"${c}"`).join(', ')}) ` +
  `select * from unnest(${UNNEST_COLUMNS.map((c, i) => `$${i + 1}::${UNNEST_COLUMN_TYPES[c]}[]`).join(', ')}) ` +
  `on conflict (vin, ts) do nothing`;

/** The newest instant of a row kept in vehicle_activity: the greater of the stored and the new one. */
const NEWER_LAST_SEEN = 'case when excluded.last_seen > vehicle_activity.last_seen then excluded.last_seen else vehicle_activity.last_seen end';

/**
 * The PostgreSQL statement that stores telemetry and its vehicles' activity together (one round
 * trip, one atomic statement): the telemetry insert as a data-modifying CTE, the activity upsert
 * from three more parameters (the batch's VINs, each one's newest instant, the storing instant).
 * PostgreSQL runs the primary statement (activity) before the unreferenced CTE (telemetry), so
 * every call takes its row locks in one order, activity by VIN then telemetry by VIN and instant,
 * and concurrent calls cannot deadlock. `returning` answers the telemetry rows this call stored.
 */
function insertWithActivitySql(returnStored: boolean): string {
  const n = UNNEST_COLUMNS.length;
  const activity = `insert into vehicle_activity (vin, last_seen, changed_at) ` +
    `select vin, last_seen, $${n + 3}::int8 from unnest($${n + 1}::varchar[], $${n + 2}::int8[]) as a(vin, last_seen) ` +
    `on conflict (vin) do update set last_seen = ${NEWER_LAST_SEEN}, changed_at = excluded.changed_at`;
  return returnStored
    ? `with stored as (${INSERT_TELEMETRY_UNNEST_SQL} returning vin, ts, event), activity as (${activity}) select vin, ts, event from stored`
    : `with stored as (${INSERT_TELEMETRY_UNNEST_SQL}) ${activity}`;
}

export const INSERT_WITH_ACTIVITY_SQL = insertWithActivitySql(false);
const INSERT_WITH_ACTIVITY_RETURNING_SQL = insertWithActivitySql(true);

export function toTelemetryRow(record: TelemetryRecord, receivedAt: number): TelemetryRow {
  return {
    vin: record.vin,
    ts: record.ts,
    ...(record.values as Partial<TelemetryRow>),
    flag: record.flag === null ? null : JSON.stringify(record.flag),
    received_at: receivedAt,
    // Left out when unknown, as absent datapoints are: queued rows stay as small as before.
    ...(record.positionAccuracyM !== undefined && { position_accuracy_m: record.positionAccuracyM }),
  };
}

const byVinThenInstant = (a: TelemetryRow, b: TelemetryRow) => (a.vin < b.vin ? -1 : a.vin > b.vin ? 1 : a.ts - b.ts);

/**
 * Stores records; a (VIN, instant) already stored is kept as it was (first write wins, also
 * between two rows of one call), so a batch resent after a timeout changes nothing. One call is
 * atomic: a single statement where array parameters exist (PostgreSQL), otherwise multi-row
 * INSERTs of at most INSERT_CHUNK rows in one transaction (SQLite), or in the caller's.
 */
export async function insertTelemetry(store: StoreConnection, given: readonly TelemetryRow[], storedAt = Date.now()): Promise<void> {
  await insertTelemetryRows(store.db, store.capabilities, given, storedAt);
}

/** A row this call stored (not one already there), with its `event` value. */
export interface StoredEventValue {
  readonly vin: string;
  readonly ts: number;
  readonly event: string | null;
}

/**
 * `insertTelemetry` on a given connection or transaction (the intake's, when events go with it).
 * With `returnStored`, answers the rows it stored: only those can imply an event, since a row
 * already there had its events written when it was stored. Every VIN of the batch gets its
 * `vehicle_activity` row in the same statement or transaction, changed at `storedAt` (the
 * followers' clock: the intake's `now`), its newest instant raised to the batch's. A row resent
 * counts as a change too: followers find nothing new behind it, which costs them a look, not a
 * wrong answer.
 */
export async function insertTelemetryRows(
  db: Db, capabilities: DialectCapabilities, given: readonly TelemetryRow[], storedAt: number, returnStored = false,
): Promise<StoredEventValue[]> {
  if (given.length === 0) return [];
  const stored: StoredEventValue[] = [];
  const keep = (rows: readonly { vin: string; ts: number | string; event: string | null }[]) => {
    for (const r of rows) stored.push({ vin: r.vin, ts: Number(r.ts), event: r.event });
  };
  if (capabilities.arrayParameters) {
    // Concurrent calls holding the same (VIN, instant) in different orders each wait for the other
    // on the unique index: a deadlock, and one call fails. Rows in one order cannot (the sort is
    // stable, so the first of two equal keys still wins).
    const rows = [...given].sort(byVinThenInstant);
    const arrays: unknown[][] = UNNEST_COLUMNS.map(() => new Array<unknown>(rows.length));
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      for (let c = 0; c < UNNEST_COLUMNS.length; c++) arrays[c]![r] = row[UNNEST_COLUMNS[c]!] ?? null;
    }
    const [vins, newest] = newestByVin(rows);
    const result = await db.executeQuery<{ vin: string; ts: string; event: string | null }>(
      CompiledQuery.raw(returnStored ? INSERT_WITH_ACTIVITY_RETURNING_SQL : INSERT_WITH_ACTIVITY_SQL, [...arrays, vins, newest, storedAt]),
    );
    if (returnStored) keep(result.rows);
    return stored;
  }
  // SQLite has one writer at a time: no order needed.
  await inTransaction(db, async (trx) => {
    for (let i = 0; i < given.length; i += INSERT_CHUNK) {
      const chunk = given.slice(i, i + INSERT_CHUNK);
      const insert = trx.insertInto('telemetry').values(chunk).onConflict((oc) => oc.columns(['vin', 'ts']).doNothing());
      if (returnStored) keep(await insert.returning(['vin', 'ts', 'event']).execute());
      else await insert.execute();
    }
    const [vins, newest] = newestByVin(given);
    for (let i = 0; i < vins.length; i += INSERT_CHUNK) {
      await trx.insertInto('vehicle_activity')
        .values(vins.slice(i, i + INSERT_CHUNK).map((vin, j) => ({ vin, last_seen: newest[i + j]!, changed_at: storedAt })))
        .onConflict((oc) => oc.column('vin').doUpdateSet({ last_seen: sql.raw(NEWER_LAST_SEEN), changed_at: (eb) => eb.ref('excluded.changed_at') }))
        .execute();
    }
  });
  return stored;
}

/** The batch's VINs in order, and each one's newest instant: what its activity row is raised to. */
function newestByVin(rows: readonly TelemetryRow[]): [string[], number[]] {
  const newest = new Map<string, number>();
  for (const r of rows) {
    const known = newest.get(r.vin);
    if (known === undefined || r.ts > known) newest.set(r.vin, r.ts);
  }
  const vins = [...newest.keys()].sort();
  return [vins, vins.map((vin) => newest.get(vin)!)];
}
