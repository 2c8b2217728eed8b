/** Plain reads and writes of plans, OEMs, companies and vehicles for the operator's tools. */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from './connection.js';
import type { CompaniesTable, OemsTable, PlansTable, VehiclesTable } from './schema.js';

export type PlanRow = Selectable<PlansTable>;
export type OemRow = Selectable<OemsTable>;
export type CompanyRow = Selectable<CompaniesTable>;
export type VehicleRow = Selectable<VehiclesTable>;

export const listPlans = (db: Db): Promise<PlanRow[]> => db.selectFrom('plans').selectAll().orderBy('name').execute();
export const listOems = (db: Db): Promise<OemRow[]> => db.selectFrom('oems').selectAll().orderBy('name').execute();
export const listCompanies = (db: Db): Promise<CompanyRow[]> => db.selectFrom('companies').selectAll().orderBy('id').execute();

export const findPlan = (db: Db, name: string) => db.selectFrom('plans').selectAll().where('name', '=', name).executeTakeFirst();
export const findOem = (db: Db, name: string) => db.selectFrom('oems').selectAll().where('name', '=', name).executeTakeFirst();
export const findCompany = (db: Db, id: string) => db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst();
export const findVehicleRow = (db: Db, vin: string) => db.selectFrom('vehicles').selectAll().where('vin', '=', vin).executeTakeFirst();
export const findVehicleByDevice = (db: Db, deviceId: string) => db.selectFrom('vehicles').selectAll().where('device_id', '=', deviceId).executeTakeFirst();

/** Replaces an OEM's ingest key hash, unless it changed meanwhile (a rotation wins). */
export async function refreshIngestKeyHash(db: Db, name: string, previous: string, next: string): Promise<void> {
  await db.updateTable('oems').set({ ingest_key_hash: next }).where('name', '=', name).where('ingest_key_hash', '=', previous).execute();
}

export async function insertPlan(db: Db, row: Insertable<PlansTable>): Promise<void> {
  await db.insertInto('plans').values(row).execute();
}
export async function updatePlan(db: Db, name: string, changes: Updateable<PlansTable>): Promise<void> {
  await db.updateTable('plans').set(changes).where('name', '=', name).execute();
}
export async function insertOem(db: Db, row: Insertable<OemsTable>): Promise<void> {
  await db.insertInto('oems').values(row).execute();
}
export async function updateOem(db: Db, name: string, changes: Updateable<OemsTable>): Promise<void> {
  await db.updateTable('oems').set(changes).where('name', '=', name).execute();
}
export async function insertCompany(db: Db, row: Insertable<CompaniesTable>): Promise<void> {
  await db.insertInto('companies').values(row).execute();
}
export async function updateCompany(db: Db, id: string, changes: Updateable<CompaniesTable>): Promise<void> {
  await db.updateTable('companies').set(changes).where('id', '=', id).execute();
}
export async function insertVehicle(db: Db, row: Insertable<VehiclesTable>): Promise<void> {
  await db.insertInto('vehicles').values(row).execute();
}
export async function updateVehicle(db: Db, vin: string, changes: Updateable<VehiclesTable>): Promise<void> {
  await db.updateTable('vehicles').set(changes).where('vin', '=', vin).execute();
}

export async function countCompanies(db: Db): Promise<number> {
  const row = await db.selectFrom('companies').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
