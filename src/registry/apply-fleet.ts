/**
 * `admin apply`: makes the registry match a fleet file, idempotently. Entities are matched by
 * their keys (plan and OEM name, company id, application name within its company, VIN); absent
 * ones are created, differing ones updated, and nothing else is touched, so applying the same file
 * twice changes nothing. Every check runs before the first write, and all writes share one
 * transaction: a file with any problem changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { serializeNameSet } from '../domain/capabilities.js';
import type { Fleet, FleetApplication, FleetCompany, FleetOem, FleetPlan, FleetProblem, FleetVehicle } from '../domain/fleet-file.js';
import type { Db } from '../store/connection.js';
import {
  insertApplication, listApplications, updateApplication, type ApplicationChanges, type ApplicationRow,
} from '../store/applications-queries.js';
import {
  findCompany, findOem, findPlan, findVehicleRow, insertCompany, insertOem, insertPlan, insertVehicle,
  updateCompany, updateOem, updatePlan, updateVehicle,
} from '../store/registry-queries.js';
import type { Keyring } from '../security/keyring.js';
import { hashSecret, verifySecret } from '../security/secret-hash.js';
import { generateClientId, generateClientSecret, generateIngestKey, generateSignSecret } from '../security/generated-secrets.js';
import { clientSecretMatches, hashClientSecret, openSignSecret, sealSignSecret } from './application-secrets.js';
import type { IssuedCredentials } from './issued-credentials.js';

export interface ApplyCounts { created: number; updated: number; unchanged: number }
export interface FleetApplyResult {
  readonly changed: boolean;
  readonly summary: Record<'plans' | 'oems' | 'companies' | 'applications' | 'vehicles', ApplyCounts>;
  readonly credentials: readonly IssuedCredentials[];
}

export class FleetRejected extends Error {
  constructor(readonly problems: readonly FleetProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
    this.name = 'FleetRejected';
  }
}

const counts = (): ApplyCounts => ({ created: 0, updated: 0, unchanged: 0 });

async function checkReferences(db: Db, fleet: Fleet): Promise<FleetProblem[]> {
  const problems: FleetProblem[] = [];
  const planNames = new Set(fleet.plans.map((p) => p.name));
  const oemNames = new Set(fleet.oems.map((o) => o.name));
  const apps = await listApplications(db);
  for (const [ci, company] of fleet.companies.entries()) {
    if (!planNames.has(company.plan) && !(await findPlan(db, company.plan))) {
      problems.push({ path: `companies[${ci}].plan`, message: `unknown plan "${company.plan}"` });
    }
    for (const [vi, vehicle] of company.vehicles.entries()) {
      const path = `companies[${ci}].vehicles[${vi}]`;
      if (!oemNames.has(vehicle.oem) && !(await findOem(db, vehicle.oem))) problems.push({ path: `${path}.oem`, message: `unknown OEM "${vehicle.oem}"` });
      const existing = await findVehicleRow(db, vehicle.vin);
      if (existing && existing.company_id !== company.id) {
        problems.push({ path: `${path}.vin`, message: `${vehicle.vin} is registered to company "${existing.company_id}"` });
      }
    }
    for (const [ai, app] of company.applications.entries()) {
      const path = `companies[${ci}].applications[${ai}]`;
      const same = apps.find((a) => a.company_id === company.id && a.name === app.name);
      if (same && app.clientId !== undefined && app.clientId !== same.client_id) {
        problems.push({ path: `${path}.client_id`, message: `application "${app.name}" already has client_id "${same.client_id}"; a client_id cannot change` });
      }
      const holder = app.clientId === undefined ? undefined : apps.find((a) => a.client_id === app.clientId);
      if (holder && holder !== same) problems.push({ path: `${path}.client_id`, message: `"${app.clientId}" belongs to another application` });
    }
  }
  return problems;
}

export async function applyFleet(db: Db, fleet: Fleet, keyring: Keyring, now: number): Promise<FleetApplyResult> {
  return db.transaction().execute(async (trx) => {
    const problems = await checkReferences(trx, fleet);
    if (problems.length > 0) throw new FleetRejected(problems);
    const summary = { plans: counts(), oems: counts(), companies: counts(), applications: counts(), vehicles: counts() };
    const credentials: IssuedCredentials[] = [];
    for (const plan of fleet.plans) tally(summary.plans, await applyPlan(trx, plan, now));
    for (const oem of fleet.oems) tally(summary.oems, await applyOem(trx, oem, keyring, now, credentials));
    const apps = await listApplications(trx);
    for (const company of fleet.companies) {
      tally(summary.companies, await applyCompany(trx, company, now));
      for (const app of company.applications) {
        const existing = apps.find((a) => a.company_id === company.id && a.name === app.name);
        tally(summary.applications, await applyApplication(trx, company.id, app, existing, keyring, now, credentials));
      }
      for (const vehicle of company.vehicles) tally(summary.vehicles, await applyVehicle(trx, company.id, vehicle, now));
    }
    const changed = Object.values(summary).some((c) => c.created + c.updated > 0);
    return { changed, summary, credentials };
  });
}

type Outcome = 'created' | 'updated' | 'unchanged';
const tally = (c: ApplyCounts, outcome: Outcome) => { c[outcome] += 1; };

async function applyPlan(db: Db, plan: FleetPlan, now: number): Promise<Outcome> {
  const wanted = { datapoints: serializeNameSet(plan.datapoints), commands: serializeNameSet(plan.commands) };
  const row = await findPlan(db, plan.name);
  if (!row) {
    await insertPlan(db, { name: plan.name, ...wanted, created_at: now, updated_at: now });
    return 'created';
  }
  if (row.datapoints === wanted.datapoints && row.commands === wanted.commands) return 'unchanged';
  await updatePlan(db, plan.name, { ...wanted, updated_at: now });
  return 'updated';
}

async function applyOem(db: Db, oem: FleetOem, keyring: Keyring, now: number, issued: IssuedCredentials[]): Promise<Outcome> {
  const wanted = {
    connector: oem.connector,
    base_url: oem.baseUrl,
    datapoints: serializeNameSet(oem.datapoints),
    commands: serializeNameSet(oem.commands),
  };
  const row = await findOem(db, oem.name);
  let ingestKeyHash = row?.ingest_key_hash ?? null;
  if (oem.ingestKey !== undefined && !(ingestKeyHash && verifySecret(oem.ingestKey, ingestKeyHash, keyring.master))) {
    ingestKeyHash = hashSecret(oem.ingestKey, keyring.master);
  } else if (ingestKeyHash === null) {
    const key = generateIngestKey();
    issued.push({ oem: oem.name, ingest_key: key });
    ingestKeyHash = hashSecret(key, keyring.master);
  }
  if (!row) {
    await insertOem(db, { name: oem.name, ...wanted, ingest_key_hash: ingestKeyHash, created_at: now, updated_at: now });
    return 'created';
  }
  const same = row.connector === wanted.connector && row.base_url === wanted.base_url && row.datapoints === wanted.datapoints
    && row.commands === wanted.commands && row.ingest_key_hash === ingestKeyHash;
  if (same) return 'unchanged';
  await updateOem(db, oem.name, { ...wanted, ingest_key_hash: ingestKeyHash, updated_at: now });
  return 'updated';
}

async function applyCompany(db: Db, company: FleetCompany, now: number): Promise<Outcome> {
  const row = await findCompany(db, company.id);
  if (!row) {
    await insertCompany(db, { id: company.id, name: company.name, plan: company.plan, created_at: now, updated_at: now });
    return 'created';
  }
  if (row.name === company.name && row.plan === company.plan) return 'unchanged';
  await updateCompany(db, company.id, { name: company.name, plan: company.plan, updated_at: now });
  return 'updated';
}

async function applyApplication(
  db: Db, companyId: string, app: FleetApplication, row: ApplicationRow | undefined, keyring: Keyring, now: number, issued: IssuedCredentials[],
): Promise<Outcome> {
  if (!row) {
    const id = randomUUID();
    const clientId = app.clientId ?? generateClientId();
    const clientSecret = app.clientSecret ?? generateClientSecret();
    const signSecret = app.signSecret ?? generateSignSecret();
    await insertApplication(db, {
      id, company_id: companyId, name: app.name, client_id: clientId,
      client_secret_hash: hashClientSecret(clientSecret, keyring),
      sign_secret_sealed: sealSignSecret(id, signSecret, keyring),
      token_lifetime: app.tokenLifetime, enabled: app.enabled ? 1 : 0, credentials_version: 1,
      created_at: now, updated_at: now,
    });
    if (app.clientId === undefined || app.clientSecret === undefined || app.signSecret === undefined) {
      issued.push({
        company: companyId, application: app.name, client_id: clientId,
        ...(app.clientSecret === undefined ? { client_secret: clientSecret } : {}),
        ...(app.signSecret === undefined ? { sign_secret: signSecret } : {}),
      });
    }
    return 'created';
  }
  const changes: { -readonly [K in keyof ApplicationChanges]: ApplicationChanges[K] } = {};
  if (app.clientSecret !== undefined && !clientSecretMatches(app.clientSecret, row.client_secret_hash, keyring)) {
    changes.client_secret_hash = hashClientSecret(app.clientSecret, keyring);
    changes.bumpCredentials = true;
  }
  if (app.signSecret !== undefined && (row.sign_secret_sealed === null || openSignSecret(row.id, row.sign_secret_sealed, keyring) !== app.signSecret)) {
    changes.sign_secret_sealed = sealSignSecret(row.id, app.signSecret, keyring);
    changes.bumpCredentials = true;
  }
  if (row.token_lifetime !== app.tokenLifetime) changes.token_lifetime = app.tokenLifetime;
  if (row.enabled !== (app.enabled ? 1 : 0)) {
    changes.enabled = app.enabled ? 1 : 0;
    changes.bumpCredentials = true;
  }
  if (Object.keys(changes).length === 0) return 'unchanged';
  await updateApplication(db, row.id, changes, now);
  return 'updated';
}

async function applyVehicle(db: Db, companyId: string, vehicle: FleetVehicle, now: number): Promise<Outcome> {
  const wanted = {
    plate: vehicle.plate, oem: vehicle.oem, model: vehicle.model, year: vehicle.year, status: vehicle.status,
    ownership: vehicle.ownership, fuel_capacity: vehicle.fuelCapacity, sim: vehicle.sim ? JSON.stringify(vehicle.sim) : null,
  };
  const row = await findVehicleRow(db, vehicle.vin);
  if (!row) {
    await insertVehicle(db, { vin: vehicle.vin, company_id: companyId, ...wanted, created_at: now, updated_at: now });
    return 'created';
  }
  const same = (Object.keys(wanted) as (keyof typeof wanted)[]).every((k) => row[k] === wanted[k]);
  if (same) return 'unchanged';
  await updateVehicle(db, vehicle.vin, { ...wanted, updated_at: now });
  return 'updated';
}
