/**
 * `admin apply`: makes the registry match a fleet file, idempotently. Entities are matched by
 * their keys (plan and OEM name, company id, application name within its company, VIN); absent
 * ones are created, differing ones updated, and nothing else is touched, so applying the same file
 * twice changes nothing. Optional fields the file leaves out keep their current value.
 *
 * Every check, including those that need the database, runs before the first write, and all
 * writes share one transaction: a file with any problem changes nothing. A secret in the file that
 * differs from the stored one is a problem unless `replaceSecrets` is set, so re-applying an old
 * file cannot quietly bring back a secret the operator rotated away.
 */
import { scopesText } from '../domain/scopes.js';
import { randomUUID } from 'node:crypto';
import { serializeNameSet } from '../domain/capabilities.js';
import {
  FLEET_DEFAULTS, type Fleet, type FleetApplication, type FleetCompany, type FleetOem, type FleetPlan, type FleetProblem, type FleetVehicle,
} from '../domain/fleet-file.js';
import type { Db } from '../store/connection.js';
import {
  findApplicationByName, insertApplication, listApplications, updateApplication, type ApplicationChanges, type ApplicationRow,
} from '../store/applications-queries.js';
import {
  findCompany, findOem, findPlan, findVehicleByDevice, findVehicleRow, insertCompany, insertOem, insertPlan, insertVehicle,
  updateCompany, updateOem, updatePlan, updateVehicle, type OemRow, type VehicleRow,
} from '../store/registry-queries.js';
import type { VehicleDevice } from '../domain/trackers.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import { CLI_OPERATOR, type AuditActor, type AuditDraft } from '../domain/audit-chain.js';
import type { Keyring } from '../security/keyring.js';
import { hashSecret, verifySecret } from '../security/secret-hash.js';
import { generateClientId, generateClientSecret, generateIngestKey, generateSignSecret } from '../security/generated-secrets.js';
import { clientSecretMatches, hashClientSecret, openSignSecret, sealSignSecret } from './application-secrets.js';
import type { IssuedCredentials } from './issued-credentials.js';
import { classifyStoreError, isUniqueViolation } from '../store/classify-error.js';
import { inTransaction } from '../store/in-transaction.js';

export interface ApplyCounts { created: number; updated: number; unchanged: number }
export interface FleetApplyResult {
  readonly changed: boolean;
  readonly summary: Record<'plans' | 'oems' | 'companies' | 'applications' | 'vehicles', ApplyCounts>;
  readonly credentials: readonly IssuedCredentials[];
}
export interface FleetApplyOptions {
  /** Let secrets in the file replace different stored ones (client, sign, ingest). */
  readonly replaceSecrets?: boolean;
  /** Who the audit trail names for the changes; the command line's operator by default. */
  readonly actor?: AuditActor;
}

export class FleetRejected extends Error {
  constructor(readonly problems: readonly FleetProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
    this.name = 'FleetRejected';
  }
}

type Outcome = 'created' | 'updated' | 'unchanged';
const counts = (): ApplyCounts => ({ created: 0, updated: 0, unchanged: 0 });
const REPLACE_HINT = 'pass --replace-secrets to replace it, or leave it out of the file';

function signSecretDiffers(app: ApplicationRow, secret: string, keyring: Keyring): boolean {
  if (app.sign_secret_sealed === null) return true;
  try {
    return openSignSecret(app.id, app.sign_secret_sealed, keyring) !== secret;
  } catch {
    return true; // sealed under a master key no longer configured: the file's secret replaces it
  }
}

async function checkAgainstStore(db: Db, fleet: Fleet, keyring: Keyring, options: FleetApplyOptions): Promise<FleetProblem[]> {
  const problems: FleetProblem[] = [];
  const planNames = new Set(fleet.plans.map((p) => p.name));
  const oemNames = new Set(fleet.oems.map((o) => o.name));
  const fileConnectors = new Map(fleet.oems.map((o) => [o.name, o.connector as string]));
  const apps = await listApplications(db);
  for (const [oi, oem] of fleet.oems.entries()) {
    const row = await findOem(db, oem.name);
    if (!options.replaceSecrets && row?.ingest_key_hash && oem.ingestKey !== undefined && !verifySecret(oem.ingestKey, row.ingest_key_hash, keyring.master)) {
      problems.push({ path: `oems[${oi}].ingest_key`, message: `differs from the stored ingest key; ${REPLACE_HINT}` });
    }
  }
  for (const [ci, company] of fleet.companies.entries()) {
    if (!planNames.has(company.plan) && !(await findPlan(db, company.plan))) {
      problems.push({ path: `companies[${ci}].plan`, message: `unknown plan "${company.plan}"` });
    }
    for (const [vi, vehicle] of company.vehicles.entries()) {
      const path = `companies[${ci}].vehicles[${vi}]`;
      const connector = fileConnectors.get(vehicle.oem) ?? (await findOem(db, vehicle.oem))?.connector;
      if (connector === undefined && !oemNames.has(vehicle.oem)) problems.push({ path: `${path}.oem`, message: `unknown OEM "${vehicle.oem}"` });
      const existing = await findVehicleRow(db, vehicle.vin);
      if (existing && existing.company_id !== company.id) {
        problems.push({ path: `${path}.vin`, message: `${vehicle.vin} is registered to company "${existing.company_id}"` });
      }
      problems.push(...await deviceProblems(db, vehicle, existing, connector, path));
    }
    for (const [ai, app] of company.applications.entries()) {
      const path = `companies[${ci}].applications[${ai}]`;
      const same = apps.find((a) => a.company_id === company.id && a.name === app.name);
      if (same && app.clientId !== undefined && app.clientId !== same.client_id) {
        problems.push({ path: `${path}.client_id`, message: `application "${app.name}" already has client_id "${same.client_id}"; a client_id cannot change` });
      }
      const holder = app.clientId === undefined ? undefined : apps.find((a) => a.client_id === app.clientId);
      if (holder && holder !== same) problems.push({ path: `${path}.client_id`, message: `"${app.clientId}" belongs to another application` });
      if (same && !options.replaceSecrets) {
        if (app.clientSecret !== undefined && !clientSecretMatches(app.clientSecret, same.client_secret_hash, keyring)) {
          problems.push({ path: `${path}.client_secret`, message: `differs from the stored secret; ${REPLACE_HINT}` });
        }
        if (app.signSecret !== undefined && signSecretDiffers(same, app.signSecret, keyring)) {
          problems.push({ path: `${path}.sign_secret`, message: `differs from the stored secret; ${REPLACE_HINT}` });
        }
      }
    }
  }
  return problems;
}

/**
 * A vehicle of a `device` OEM is reached only through its tracker, and a tracker only reaches a
 * vehicle of such an OEM; a device id names one vehicle in the whole registry.
 */
async function deviceProblems(db: Db, vehicle: FleetVehicle, existing: VehicleRow | undefined, connector: string | undefined, path: string): Promise<FleetProblem[]> {
  const device = vehicle.device === undefined ? deviceOf(existing) : vehicle.device;
  if (connector === undefined) return [];
  if (connector === 'device' && !device) return [{ path: `${path}.device`, message: `is required: OEM "${vehicle.oem}" reaches its vehicles through their trackers` }];
  if (connector !== 'device' && device) return [{ path: `${path}.device`, message: `OEM "${vehicle.oem}" uses the ${connector} connector; only vehicles of a device OEM have a tracker` }];
  if (!device) return [];
  const holder = await findVehicleByDevice(db, device.id);
  return holder && holder.vin !== vehicle.vin ? [{ path: `${path}.device.id`, message: `"${device.id}" is the tracker of vehicle ${holder.vin}` }] : [];
}

const deviceOf = (row: VehicleRow | undefined): VehicleDevice | null => (row?.device_protocol && row.device_id
  ? { protocol: row.device_protocol as VehicleDevice['protocol'], id: row.device_id } : null);

/**
 * Runs one entity's write; a database error is reported against that entity's path. A database
 * that is unreachable or busy is not a problem of the file: it goes up as it is (a 503, a retry).
 */
async function at<T>(path: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof FleetRejected || classifyStoreError(error) === 'unavailable') throw error;
    if (isUniqueViolation(error)) throw new FleetRejected([{ path, message: 'was registered by another change just now', conflict: true }]);
    throw new FleetRejected([{ path, message: `could not be stored: ${error instanceof Error ? error.message : String(error)}` }]);
  }
}

/** In the caller's transaction when there is one: a check of its own can go with the writes. */
export async function applyFleet(db: Db, fleet: Fleet, keyring: Keyring, now: number, options: FleetApplyOptions = {}): Promise<FleetApplyResult> {
  return inTransaction(db, async (trx) => {
    const problems = await checkAgainstStore(trx, fleet, keyring, options);
    if (problems.length > 0) throw new FleetRejected(problems);
    const summary = { plans: counts(), oems: counts(), companies: counts(), applications: counts(), vehicles: counts() };
    const credentials: IssuedCredentials[] = [];
    const audits: AuditDraft[] = [];
    const actor = options.actor ?? CLI_OPERATOR;
    // Each created or updated thing is an audit entry: a company's in its chain, plans and automakers in the service's.
    const tally = (c: ApplyCounts, outcome: Outcome, kind?: string, companyId?: string | null, target?: string) => {
      c[outcome] += 1;
      if (kind !== undefined && outcome !== 'unchanged') audits.push({ companyId: companyId ?? null, actor, action: `${kind}.${outcome}`, target: target ?? null, outcome: 'success' });
    };
    for (const [i, plan] of fleet.plans.entries()) tally(summary.plans, await at(`plans[${i}]`, () => applyPlan(trx, plan, now)), 'plan', null, plan.name);
    for (const [i, oem] of fleet.oems.entries()) tally(summary.oems, await at(`oems[${i}]`, () => applyOem(trx, oem, keyring, now, credentials)), 'oem', null, oem.name);
    const apps = await listApplications(trx);
    for (const [ci, company] of fleet.companies.entries()) {
      tally(summary.companies, await at(`companies[${ci}]`, () => applyCompany(trx, company, now)), 'company', company.id, company.id);
      for (const [ai, app] of company.applications.entries()) {
        const existing = apps.find((a) => a.company_id === company.id && a.name === app.name);
        const outcome = await at(`companies[${ci}].applications[${ai}]`, () => applyApplication(trx, company.id, app, existing, keyring, now, credentials));
        // Named by its client id, as the trail names an application acting.
        const clientId = outcome === 'unchanged' ? app.name : (await findApplicationByName(trx, company.id, app.name))?.client_id ?? app.name;
        tally(summary.applications, outcome, 'application', company.id, clientId);
      }
      for (const [vi, vehicle] of company.vehicles.entries()) {
        tally(summary.vehicles, await at(`companies[${ci}].vehicles[${vi}]`, () => applyVehicle(trx, company.id, vehicle, now)), 'vehicle', company.id, vehicle.vin);
      }
    }
    await appendAuditEntries(trx, audits, now);
    const changed = Object.values(summary).some((c) => c.created + c.updated > 0);
    return { changed, summary, credentials };
  });
}

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

function ingestKeyHash(oem: FleetOem, row: OemRow | undefined, keyring: Keyring, issued: IssuedCredentials[]): string {
  const stored = row?.ingest_key_hash ?? null;
  if (oem.ingestKey !== undefined) {
    return stored !== null && verifySecret(oem.ingestKey, stored, keyring.master) ? stored : hashSecret(oem.ingestKey, keyring.master);
  }
  if (stored !== null) return stored;
  const key = generateIngestKey();
  issued.push({ oem: oem.name, ingest_key: key });
  return hashSecret(key, keyring.master);
}

async function applyOem(db: Db, oem: FleetOem, keyring: Keyring, now: number, issued: IssuedCredentials[]): Promise<Outcome> {
  const row = await findOem(db, oem.name);
  const wanted = {
    connector: oem.connector, base_url: oem.baseUrl, datapoints: serializeNameSet(oem.datapoints),
    commands: serializeNameSet(oem.commands), ingest_key_hash: ingestKeyHash(oem, row, keyring, issued),
    device_settings: oem.connector !== 'device' ? null
      : oem.immobilizer === undefined ? (row?.device_settings ?? null) : JSON.stringify({ immobilizer: oem.immobilizer }),
  };
  if (!row) {
    await insertOem(db, { name: oem.name, ...wanted, created_at: now, updated_at: now });
    return 'created';
  }
  if ((Object.keys(wanted) as (keyof typeof wanted)[]).every((k) => row[k] === wanted[k])) return 'unchanged';
  await updateOem(db, oem.name, { ...wanted, updated_at: now });
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
      token_lifetime: app.tokenLifetime ?? FLEET_DEFAULTS.tokenLifetime,
      enabled: (app.enabled ?? FLEET_DEFAULTS.enabled) ? 1 : 0, credentials_version: 1,
      scopes: scopesText(app.scopes ?? '*'),
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
  if (app.signSecret !== undefined && signSecretDiffers(row, app.signSecret, keyring)) {
    changes.sign_secret_sealed = sealSignSecret(row.id, app.signSecret, keyring);
    changes.bumpCredentials = true;
  }
  if (app.tokenLifetime !== undefined && row.token_lifetime !== app.tokenLifetime) changes.token_lifetime = app.tokenLifetime;
  if (app.scopes !== undefined && row.scopes !== scopesText(app.scopes)) changes.scopes = scopesText(app.scopes);
  if (app.enabled !== undefined && row.enabled !== (app.enabled ? 1 : 0)) {
    changes.enabled = app.enabled ? 1 : 0;
    changes.bumpCredentials = true;
  }
  if (Object.keys(changes).length === 0) return 'unchanged';
  await updateApplication(db, row.id, changes, now);
  return 'updated';
}

async function applyVehicle(db: Db, companyId: string, vehicle: FleetVehicle, now: number): Promise<Outcome> {
  const row = await findVehicleRow(db, vehicle.vin);
  const sim = vehicle.sim === undefined ? undefined : vehicle.sim === null ? null : JSON.stringify(vehicle.sim);
  const wanted = {
    plate: vehicle.plate, oem: vehicle.oem, model: vehicle.model, year: vehicle.year,
    status: vehicle.status ?? row?.status ?? FLEET_DEFAULTS.status,
    ownership: vehicle.ownership ?? row?.ownership ?? FLEET_DEFAULTS.ownership,
    fuel_capacity: vehicle.fuelCapacity === undefined ? (row?.fuel_capacity ?? null) : vehicle.fuelCapacity,
    sim: sim === undefined ? (row?.sim ?? null) : sim,
    device_protocol: vehicle.device === undefined ? (row?.device_protocol ?? null) : (vehicle.device?.protocol ?? null),
    device_id: vehicle.device === undefined ? (row?.device_id ?? null) : (vehicle.device?.id ?? null),
  };
  if (!row) {
    await insertVehicle(db, { vin: vehicle.vin, company_id: companyId, ...wanted, created_at: now, updated_at: now });
    return 'created';
  }
  if ((Object.keys(wanted) as (keyof typeof wanted)[]).every((k) => row[k] === wanted[k])) return 'unchanged';
  await updateVehicle(db, vehicle.vin, { ...wanted, updated_at: now });
  return 'updated';
}
