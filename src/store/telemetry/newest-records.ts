/** Each vehicle's newest record, for GET /vehicle-data/latest. */
import { sql } from 'kysely';
import { STORED_DATAPOINTS } from '../../domain/telemetry-record.js';
import type { Db } from '../connection.js';
import type { TelemetryColumn } from './read.js';

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
