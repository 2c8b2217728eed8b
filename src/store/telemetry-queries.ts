import { CompiledQuery, sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { TelemetryRecord } from '../domain/telemetry-record.js';
import { STORED_DATAPOINTS } from '../domain/telemetry-record.js';
import type { Db, StoreConnection } from './connection.js';
import type { TelemetryTable } from './schema.js';
import type { DialectCapabilities } from './dialect.js';
import { inTransaction } from './in-transaction.js';

export type TelemetryRow = Insertable<TelemetryTable>;

/** Rows per INSERT without array parameters: 24 columns × 500 stays far below SQLite's bound-parameter limit. */
const INSERT_CHUNK = 500;

/**
 * Every telemetry column and the PostgreSQL type of its array parameter, as migration 0002 creates
 * them (varchar(17), bigint, double precision per number datapoint, text). `satisfies` keeps this
 * list and schema.ts in step: a column missing or extra here fails to compile.
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

export function toTelemetryRow(record: TelemetryRecord, receivedAt: number): TelemetryRow {
  return {
    vin: record.vin,
    ts: record.ts,
    ...(record.values as Partial<TelemetryRow>),
    flag: record.flag === null ? null : JSON.stringify(record.flag),
    received_at: receivedAt,
  };
}

const byVinThenInstant = (a: TelemetryRow, b: TelemetryRow) => (a.vin < b.vin ? -1 : a.vin > b.vin ? 1 : a.ts - b.ts);

/**
 * Stores records; a (VIN, instant) already stored is kept as it was (first write wins, also
 * between two rows of one call), so a batch resent after a timeout changes nothing. One call is
 * atomic: a single statement where array parameters exist (PostgreSQL), otherwise multi-row
 * INSERTs of at most INSERT_CHUNK rows in one transaction (SQLite), or in the caller's.
 */
export async function insertTelemetry(store: StoreConnection, given: readonly TelemetryRow[]): Promise<void> {
  await insertTelemetryRows(store.db, store.capabilities, given);
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
 * already there had its events written when it was stored.
 */
export async function insertTelemetryRows(db: Db, capabilities: DialectCapabilities, given: readonly TelemetryRow[], returnStored = false): Promise<StoredEventValue[]> {
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
    const result = await db.executeQuery<{ vin: string; ts: string; event: string | null }>(
      CompiledQuery.raw(returnStored ? `${INSERT_TELEMETRY_UNNEST_SQL} returning vin, ts, event` : INSERT_TELEMETRY_UNNEST_SQL, arrays),
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
  });
  return stored;
}

/** The VINs registered to the OEM. */
export async function vinsOfOem(db: Db, oem: string): Promise<ReadonlySet<string>> {
  const rows = await db.selectFrom('vehicles').select('vin').where('oem', '=', oem).execute();
  return new Set(rows.map((r) => r.vin));
}

export type TelemetryColumn = Exclude<keyof TelemetryTable, 'received_at'>;

/** One page of a VIN's records in [start, end], ascending, strictly after `afterTs` (keyset paging). */
export function readTelemetryPage(
  db: Db, vin: string, start: number, end: number, afterTs: number, limit: number, columns: readonly TelemetryColumn[],
) {
  return db.selectFrom('telemetry').select(['ts', ...columns])
    .where('vin', '=', vin).where('ts', '>=', Math.max(start, afterTs + 1)).where('ts', '<=', end)
    .orderBy('ts').limit(limit).execute();
}

/** Whether any of the VINs has a record in [start, end]: one index probe per VIN. */
export async function anyTelemetry(db: Db, vins: readonly string[], start: number, end: number): Promise<boolean> {
  for (const vin of vins) {
    const row = await db.selectFrom('telemetry').select(sql<number>`1`.as('one'))
      .where('vin', '=', vin).where('ts', '>=', start).where('ts', '<=', end).limit(1).executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** The oldest instant stored for a VIN. */
export async function oldestTelemetryTs(db: Db, vin: string): Promise<number | undefined> {
  const row = await db.selectFrom('telemetry').select('ts').where('vin', '=', vin).orderBy('ts').limit(1).executeTakeFirst();
  return row?.ts;
}

/** The latest instant stored for a VIN. */
export async function latestTelemetryTs(db: Db, vin: string): Promise<number | undefined> {
  const row = await db.selectFrom('telemetry').select('ts').where('vin', '=', vin).orderBy('ts', 'desc').limit(1).executeTakeFirst();
  return row?.ts;
}

/** The latest record of a VIN with a position and an odometer (the simulator resumes from it). */
export function latestPositionedTelemetry(db: Db, vin: string) {
  return db.selectFrom('telemetry').select(['ts', 'latitude', 'longitude', 'odometer', 'fuel_level', 'hv_battery_soc'])
    .where('vin', '=', vin).where('latitude', 'is not', null).where('longitude', 'is not', null).where('odometer', 'is not', null)
    .orderBy('ts', 'desc').limit(1).executeTakeFirst();
}

/** The newest non-null value of each of `columns` for a VIN (a diagnostics answer from stored data). */
export async function latestValues<C extends TelemetryColumn>(db: Db, vin: string, columns: readonly C[]): Promise<Partial<Record<C, number | string | null>>> {
  const values: Partial<Record<C, number | string | null>> = {};
  for (const column of columns) {
    const row = await db.selectFrom('telemetry').select(column).where('vin', '=', vin).where(column, 'is not', null)
      .orderBy('ts', 'desc').limit(1).executeTakeFirst();
    if (row) values[column] = (row as unknown as Record<C, number | string | null>)[column];
  }
  return values;
}

export type NewestTelemetryRow = { vin: string; oem: string; ts: number | null } & Partial<Record<TelemetryColumn, number | string | null>>;

/** Pairs per statement of the second step: far below either dialect's limit on parameters. */
const NEWEST_CHUNK = 400;

/**
 * Each of a company's vehicles (ordered by VIN) with its automaker and newest record, null
 * columns when it has none. Two steps, so that each stays an index probe on both dialects: each
 * vehicle's newest instant (max over the primary key), then the records at those (vin, ts) pairs.
 * A join on the correlated max made PostgreSQL probe every daily partition per partition.
 */
export async function newestRecordsOfCompany(db: Db, companyId: string): Promise<NewestTelemetryRow[]> {
  const { rows: vehicles } = await sql<{ vin: string; oem: string; ts: number | string | null }>`
    select v.vin as vin, v.oem as oem, (select max(x.ts) from telemetry x where x.vin = v.vin) as ts
    from vehicles v where v.company_id = ${companyId} order by v.vin`.execute(db);
  const columns = [...STORED_DATAPOINTS.map((d) => d.name), 'flag'].map((name) => sql.ref(name));
  const reported = vehicles.filter((v) => v.ts !== null);
  const records = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < reported.length; i += NEWEST_CHUNK) {
    const pairs = reported.slice(i, i + NEWEST_CHUNK).map((v) => sql`(vin = ${v.vin} and ts = ${Number(v.ts)})`);
    const { rows } = await sql<Record<string, unknown> & { vin: string }>`
      select vin, ${sql.join(columns)} from telemetry where ${sql.join(pairs, sql` or `)}`.execute(db);
    for (const row of rows) records.set(row.vin, row);
  }
  return vehicles.map((v) => ({ ...records.get(v.vin), vin: v.vin, oem: v.oem, ts: v.ts === null ? null : Number(v.ts) }));
}

/** A VIN's records before `beforeTs`, newest first: where GET /vehicle-data/latest looks behind a newest record it cannot read. */
export async function recordsBefore(db: Db, vin: string, beforeTs: number, limit: number): Promise<Record<string, unknown>[]> {
  const columns = [...STORED_DATAPOINTS.map((d) => d.name), 'flag'].map((name) => sql.ref(name));
  const { rows } = await sql<Record<string, unknown>>`
    select ts, ${sql.join(columns)} from telemetry where vin = ${vin} and ts < ${beforeTs} order by ts desc limit ${limit}`.execute(db);
  return rows;
}
