import { sql } from 'kysely';
import type { Db } from './connection.js';
import { compiledQuery } from './compiled-query.js';
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
  readonly deviceProtocol: string | null;
  readonly deviceId: string | null;
  readonly createdAt: number;
}

function vehicleQuery(db: Db) {
  return db
    .selectFrom('vehicles as v')
    .innerJoin('companies as c', 'c.id', 'v.company_id')
    .select([
      'v.vin as vin', 'v.company_id as companyId', 'c.name as companyName', 'v.plate as plate', 'v.oem as oem',
      'v.model as model', 'v.year as year', 'v.status as status', 'v.ownership as ownership',
      'v.fuel_capacity as fuelCapacity', 'v.sim as sim', 'v.device_protocol as deviceProtocol', 'v.device_id as deviceId',
      'v.created_at as createdAt',
    ]);
}

const companyVehicles = compiledQuery(1, (db, companyId: string) => vehicleQuery(db).where('v.company_id', '=', companyId).orderBy('v.vin'));
const companyVehicle = compiledQuery(2, (db, companyId: string, vin: string) => vehicleQuery(db).where('v.company_id', '=', companyId).where('v.vin', '=', vin));

/** A company's vehicles in any status, ordered by VIN. */
export function listCompanyVehicles(db: Db, companyId: string): Promise<VehicleRecord[]> {
  return companyVehicles(db, companyId);
}

/** The vehicle only if it belongs to the company: another company's VIN reads as absent. */
export async function findCompanyVehicle(db: Db, companyId: string, vin: string): Promise<VehicleRecord | undefined> {
  return (await companyVehicle(db, companyId, vin))[0];
}

export function listAllVehicles(db: Db, companyId?: string): Promise<VehicleRecord[]> {
  let q = vehicleQuery(db);
  if (companyId !== undefined) q = q.where('v.company_id', '=', companyId);
  return q.orderBy('v.company_id').orderBy('v.vin').execute();
}

/** The company of each of `vins` that is registered. */
export async function companiesOfVins(db: Db, vins: readonly string[]): Promise<Map<string, string>> {
  if (vins.length === 0) return new Map();
  const rows = await db.selectFrom('vehicles').select(['vin', 'company_id']).where('vin', 'in', [...vins]).execute();
  return new Map(rows.map((r) => [r.vin, r.company_id]));
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

/** The OEM of each of these VINs that the company has (others are absent from the map). */
export async function companyVehicleOems(db: Db, companyId: string, vins: readonly string[]): Promise<Map<string, string>> {
  if (vins.length === 0) return new Map();
  const rows = await db.selectFrom('vehicles').select(['vin', 'oem']).where('company_id', '=', companyId).where('vin', 'in', vins).execute();
  return new Map(rows.map((r) => [r.vin, r.oem]));
}

/** What a command to a company's vehicle needs: its OEM's connector and commands, and the plan's. */
export interface CommandTarget {
  readonly vin: string;
  readonly oem: string;
  readonly ownership: string;
  /** Null when the OEM or plan row is missing (the command is then unavailable). */
  readonly connector: string | null;
  readonly baseUrl: string | null;
  readonly oemCommands: string | null;
  readonly planCommands: string | null;
  /** The vehicle's tracker protocol; null when an automaker cloud reaches it. */
  readonly deviceProtocol: string | null;
}

const commandTarget = compiledQuery(2, (db, companyId: string, vin: string) => db
  .selectFrom('vehicles as v')
  .innerJoin('companies as c', 'c.id', 'v.company_id')
  .leftJoin('oems as o', 'o.name', 'v.oem')
  .leftJoin('plans as p', 'p.name', 'c.plan')
  .select([
    'v.vin as vin', 'v.oem as oem', 'v.ownership as ownership', 'o.connector as connector', 'o.base_url as baseUrl',
    'o.commands as oemCommands', 'p.commands as planCommands', 'v.device_protocol as deviceProtocol',
  ])
  .where('v.company_id', '=', companyId).where('v.vin', '=', vin));

/** One read on the command path: the company's vehicle with its OEM and plan, or undefined. */
export async function findCommandTarget(db: Db, companyId: string, vin: string): Promise<CommandTarget | undefined> {
  return (await commandTarget(db, companyId, vin))[0];
}

/** The vehicle a tracker logs in as: only a vehicle of a `device` OEM, by protocol and id. */
export interface TrackedVehicle {
  readonly vin: string;
  readonly oem: string;
}

const trackedVehicle = compiledQuery(2, (db, protocol: string, deviceId: string) => db
  .selectFrom('vehicles as v')
  .innerJoin('oems as o', 'o.name', 'v.oem')
  .select(['v.vin as vin', 'v.oem as oem'])
  .where('v.device_protocol', '=', protocol).where('v.device_id', '=', deviceId).where('o.connector', '=', sql.lit('device')));

export async function findTrackedVehicle(db: Db, protocol: string, deviceId: string): Promise<TrackedVehicle | undefined> {
  return (await trackedVehicle(db, protocol, deviceId))[0];
}

/** What a command to a tracked vehicle needs: its device and its OEM's tracker settings. */
export function findVehicleTracker(db: Db, vin: string) {
  return db.selectFrom('vehicles as v').innerJoin('oems as o', 'o.name', 'v.oem')
    .select(['v.device_protocol as protocol', 'v.device_id as deviceId', 'v.fuel_capacity as fuelCapacity', 'o.device_settings as deviceSettings'])
    .where('v.vin', '=', vin).executeTakeFirst();
}

/** The VINs registered to the OEM. */
export async function vinsOfOem(db: Db, oem: string): Promise<ReadonlySet<string>> {
  const rows = await db.selectFrom('vehicles').select('vin').where('oem', '=', oem).execute();
  return new Set(rows.map((r) => r.vin));
}
