/**
 * One registry entry added or changed: what `telematics admin plan|oem|company|vehicle add|set`
 * and the operator console both do. Each builds the fleet file's fragment for the one entry and
 * goes through the fleet file's checks and `applyFleet`, so the command line, the browser and
 * `admin apply` accept exactly the same values, write them the same way and audit them alike.
 * A change keeps what it does not name. Mistakes are `RegistryError`s naming the field.
 */
import { parseNameSet } from '../domain/capabilities.js';
import type { AuditActor } from '../domain/audit-chain.js';
import { validateFleetFile, type FleetProblem } from '../domain/fleet-file.js';
import { generateIngestKey } from '../security/generated-secrets.js';
import type { Keyring } from '../security/keyring.js';
import type { Db } from '../store/connection.js';
import { findCompany, findOem, findPlan, findVehicleRow } from '../store/registry-queries.js';
import { inTransaction } from '../store/in-transaction.js';
import { applyFleet, FleetRejected, type FleetApplyResult } from './apply-fleet.js';
import { RegistryError } from './manage-applications.js';

export interface RegistryDeps {
  readonly db: Db;
  /** Read only when a secret is written or checked. */
  readonly keyring: () => Keyring;
  readonly now: () => number;
  readonly actor: AuditActor;
}

/** Fields as the fleet file spells them; unchecked until the file's checks read them. */
export type EntryFields = Readonly<Record<string, unknown>>;

/** Problems name fleet-file paths; for one entry only the field is useful. */
const fieldOf = (path: string) => path.replace(/^.*\./, '').replace(/^\(file\)$/, 'input');

export function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

/** At most this many problems are named: a body of a million bad names gets a short answer. */
const NAMED_PROBLEMS = 20;

function rejected(problems: readonly FleetProblem[]): RegistryError {
  const named = problems.slice(0, NAMED_PROBLEMS).map((p) => `${fieldOf(p.path)}: ${p.message}`);
  if (problems.length > NAMED_PROBLEMS) named.push(`and ${problems.length - NAMED_PROBLEMS} more`);
  return new RegistryError(named.join('; '), problems.some((p) => p.conflict) ? 'exists' : 'invalid');
}

interface ApplyOptions {
  readonly replaceSecrets?: boolean;
  /** Checked in the write's transaction (an add's "not there yet"), so two racing adds cannot both pass it. */
  readonly first?: (trx: Db) => Promise<void>;
}

async function apply(deps: RegistryDeps, fragment: Record<string, unknown>, options: ApplyOptions = {}): Promise<FleetApplyResult> {
  const validation = validateFleetFile(fragment);
  if (!validation.ok) throw rejected(validation.problems);
  try {
    return await inTransaction(deps.db, async (trx) => {
      await options.first?.(trx);
      return applyFleet(trx, validation.fleet, deps.keyring(), deps.now(), { replaceSecrets: options.replaceSecrets ?? false, actor: deps.actor });
    });
  } catch (error) {
    if (error instanceof FleetRejected) throw rejected(error.problems);
    throw error;
  }
}

/** Only the named fields: a body may not set a key or a secret another way. */
function pick(fields: EntryFields, names: readonly string[]): Record<string, unknown> {
  const unknown = Object.keys(fields).filter((k) => !names.includes(k));
  if (unknown.length > 0) throw new RegistryError(`${unknown[0]}: is not a field here (${names.join(', ')})`);
  return defined(Object.fromEntries(names.map((n) => [n, fields[n]])));
}

const keyText = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || value === '') throw new RegistryError(`${field}: is required`);
  return value;
};

// Plans -----------------------------------------------------------------------------------------

const PLAN_FIELDS = ['datapoints', 'commands'] as const;

/** Everything unless narrowed, as an OEM: a plan names what a company may use. */
export async function addPlan(deps: RegistryDeps, fields: EntryFields): Promise<{ name: string }> {
  const name = keyText(fields.name, 'name');
  await apply(deps, { plans: [{ name, datapoints: '*', commands: '*', ...pick(fields, ['name', ...PLAN_FIELDS]) }] }, {
    first: async (trx) => { if (await findPlan(trx, name)) throw new RegistryError(`plan "${name}" already exists`, 'exists'); },
  });
  return { name };
}

export async function changePlan(deps: RegistryDeps, name: string, fields: EntryFields): Promise<{ name: string; changed: boolean }> {
  const row = await findPlan(deps.db, name);
  if (!row) throw new RegistryError(`unknown plan "${name}"`, 'unknown');
  const wanted = { name: row.name, datapoints: parseNameSet(row.datapoints), commands: parseNameSet(row.commands), ...pick(fields, PLAN_FIELDS) };
  return { name: row.name, changed: (await apply(deps, { plans: [wanted] })).changed };
}

// Automakers ------------------------------------------------------------------------------------

const OEM_FIELDS = ['connector', 'base_url', 'datapoints', 'commands'] as const;

/** Its ingest key is generated here and answered once. */
export async function addOem(deps: RegistryDeps, fields: EntryFields): Promise<{ name: string; ingest_key: string }> {
  const name = keyText(fields.name, 'name');
  const ingestKey = generateIngestKey();
  await apply(deps, { oems: [{ name, datapoints: '*', commands: '*', ...pick(fields, ['name', ...OEM_FIELDS]), ingest_key: ingestKey }] }, {
    first: async (trx) => { if (await findOem(trx, name)) throw new RegistryError(`OEM "${name}" already exists`, 'exists'); },
  });
  return { name, ingest_key: ingestKey };
}

export async function changeOem(deps: RegistryDeps, name: string, fields: EntryFields, rotateIngestKey = false): Promise<{ name: string; changed: boolean; ingest_key?: string }> {
  const row = await findOem(deps.db, name);
  if (!row) throw new RegistryError(`unknown OEM "${name}"`, 'unknown');
  const ingestKey = rotateIngestKey ? generateIngestKey() : undefined;
  const wanted = defined({
    name: row.name, connector: row.connector, base_url: row.base_url ?? undefined,
    datapoints: parseNameSet(row.datapoints), commands: parseNameSet(row.commands), ...pick(fields, OEM_FIELDS), ingest_key: ingestKey,
  });
  const result = await apply(deps, { oems: [wanted] }, { replaceSecrets: ingestKey !== undefined });
  return { name: row.name, changed: result.changed, ...(ingestKey === undefined ? {} : { ingest_key: ingestKey }) };
}

// Companies -------------------------------------------------------------------------------------

async function companyEntry(db: Db, id: string, missing: 'unknown' | 'invalid') {
  const company = await findCompany(db, id);
  if (!company) throw new RegistryError(`unknown company "${id}"`, missing);
  return { id: company.id, name: company.name, plan: company.plan };
}

export async function addCompany(deps: RegistryDeps, fields: EntryFields): Promise<{ id: string }> {
  const id = keyText(fields.id, 'id');
  await apply(deps, { companies: [pick(fields, ['id', 'name', 'plan'])] }, {
    first: async (trx) => { if (await findCompany(trx, id)) throw new RegistryError(`company "${id}" already exists`, 'exists'); },
  });
  return { id };
}

export async function changeCompany(deps: RegistryDeps, id: string, fields: EntryFields): Promise<{ id: string; changed: boolean }> {
  const wanted = { ...(await companyEntry(deps.db, id, 'unknown')), ...pick(fields, ['name', 'plan']) };
  return { id, changed: (await apply(deps, { companies: [wanted] })).changed };
}

// Vehicles --------------------------------------------------------------------------------------

const VEHICLE_FIELDS = ['plate', 'oem', 'model', 'year', 'status', 'ownership', 'fuel_capacity', 'device', 'sim'] as const;

export async function addVehicle(deps: RegistryDeps, companyId: unknown, fields: EntryFields): Promise<{ vin: string }> {
  const company = keyText(companyId, 'company');
  const vin = keyText(fields.vin, 'vin');
  const entry = pick(fields, ['vin', ...VEHICLE_FIELDS]);
  await apply(deps, { companies: [{ ...(await companyEntry(deps.db, company, 'invalid')), vehicles: [entry] }] }, {
    first: async (trx) => {
      const existing = await findVehicleRow(trx, vin);
      // A VIN belongs to one company, and its data with it: a change cannot move it.
      if (existing && existing.company_id !== company) {
        throw new RegistryError(`vehicle ${vin} is registered to company "${existing.company_id}", not "${company}": check the VIN (a vehicle cannot be moved between companies)`);
      }
      if (existing) throw new RegistryError(`vehicle ${vin} already exists`, 'exists');
    },
  });
  return { vin };
}

/** `sim` merges over the stored simulation settings: naming its profile keeps whether it reports telemetry. */
export async function changeVehicle(deps: RegistryDeps, vin: string, fields: EntryFields): Promise<{ vin: string; changed: boolean }> {
  const row = await findVehicleRow(deps.db, vin);
  if (!row) throw new RegistryError(`unknown vehicle ${vin}`, 'unknown');
  const given = pick(fields, VEHICLE_FIELDS);
  const storedSim = row.sim ? (JSON.parse(row.sim) as Record<string, unknown>) : undefined;
  const sim = given.sim !== null && typeof given.sim === 'object' && !Array.isArray(given.sim) ? { ...storedSim, ...given.sim } : (given.sim === undefined ? storedSim : given.sim);
  const entry = defined({
    vin: row.vin, plate: row.plate, oem: row.oem, model: row.model, year: row.year, status: row.status,
    ownership: row.ownership, fuel_capacity: row.fuel_capacity ?? undefined, ...given, sim,
  });
  const result = await apply(deps, { companies: [{ ...(await companyEntry(deps.db, row.company_id, 'unknown')), vehicles: [entry] }] });
  return { vin: row.vin, changed: result.changed };
}
