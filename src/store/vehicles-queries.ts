import type { Db } from './connection.js';
import { isValidVin } from '../domain/vin.js';

export interface VehicleRecord {
  readonly vin: string;
  readonly companyId: string;
  readonly companyName: string;
  readonly plate: string;
  readonly oem: string;
  readonly model: string;
  readonly year: number;
  readonly status: string;
  readonly ownership: string;
  readonly fuelCapacity: number | null;
  readonly sim: string | null;
  readonly createdAt: number;
}

function vehicleQuery(db: Db) {
  return db
    .selectFrom('vehicles as v')
    .innerJoin('companies as c', 'c.id', 'v.company_id')
    .select([
      'v.vin as vin', 'v.company_id as companyId', 'c.name as companyName', 'v.plate as plate', 'v.oem as oem',
      'v.model as model', 'v.year as year', 'v.status as status', 'v.ownership as ownership',
      'v.fuel_capacity as fuelCapacity', 'v.sim as sim', 'v.created_at as createdAt',
    ]);
}

/** A company's vehicles in any status, ordered by VIN. */
export function listCompanyVehicles(db: Db, companyId: string): Promise<VehicleRecord[]> {
  return vehicleQuery(db).where('v.company_id', '=', companyId).orderBy('v.vin').execute();
}

/** The vehicle only if it belongs to the company: another company's VIN reads as absent. */
export function findCompanyVehicle(db: Db, companyId: string, vin: string): Promise<VehicleRecord | undefined> {
  return vehicleQuery(db).where('v.company_id', '=', companyId).where('v.vin', '=', vin).executeTakeFirst();
}

export function listAllVehicles(db: Db, companyId?: string): Promise<VehicleRecord[]> {
  let q = vehicleQuery(db);
  if (companyId !== undefined) q = q.where('v.company_id', '=', companyId);
  return q.orderBy('v.company_id').orderBy('v.vin').execute();
}

export function findVehicle(db: Db, vin: string): Promise<VehicleRecord | undefined> {
  return vehicleQuery(db).where('v.vin', '=', vin).executeTakeFirst();
}

/**
 * The company's vehicles for every one of `vins` (distinct), by VIN; undefined when any VIN is
 * malformed, unknown or another company's, which callers answer as `VIN not found…`.
 */
export async function findAllCompanyVehicles(db: Db, companyId: string, vins: readonly string[]): Promise<Map<string, VehicleRecord> | undefined> {
  const wellFormed = vins.filter(isValidVin);
  if (wellFormed.length !== vins.length) return undefined;
  const rows = wellFormed.length === 0 ? [] : await vehicleQuery(db).where('v.company_id', '=', companyId).where('v.vin', 'in', wellFormed).execute();
  return rows.length === vins.length ? new Map(rows.map((r) => [r.vin, r])) : undefined;
}
