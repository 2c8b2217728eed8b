/**
 * The fleet file of OPERATIONS.md: its shape, and the checks that need no database. Validation
 * collects every problem, each naming the entry it is about (`companies[0].vehicles[2].vin`), so
 * an operator can fix a file in one pass; nothing is applied while any problem remains.
 */
import { ALL_SCOPES_TEXT, readScopeList, SCOPES, scopeListProblem, type Scope } from './scopes.js';
import { DATAPOINT_NAMES } from './datapoints.js';
import { COMMAND_NAMES } from './command-catalogue.js';
import type { NameSet } from './capabilities.js';
import { isValidVin, VIN_RULE } from './vin.js';
import { escapeUnsafeText, unsafeTextProblem } from './safe-text.js';
import { DEVICE_PROTOCOLS, deviceIdProblem, MAX_DIGITAL_OUTPUT, type ImmobilizerSettings, type VehicleDevice } from './trackers.js';
import {
  CONNECTOR_KINDS, DEFAULT_TOKEN_LIFETIME, MAX_TOKEN_LIFETIME, MIN_SUPPLIED_SECRET_LENGTH,
  MIN_TOKEN_LIFETIME, OWNERSHIP_TYPES, SIM_PROFILES, VEHICLE_STATUSES,
  type ConnectorKind, type OwnershipType, type VehicleSimSettings, type VehicleStatus,
} from './vehicle.js';

export interface FleetPlan { readonly name: string; readonly datapoints: NameSet; readonly commands: NameSet }
export interface FleetOem {
  readonly name: string;
  readonly connector: ConnectorKind;
  readonly baseUrl: string | null;
  readonly ingestKey: string | undefined;
  readonly datapoints: NameSet;
  readonly commands: NameSet;
  /** A `device` OEM's relay wiring; undefined when the file leaves it out. */
  readonly immobilizer?: ImmobilizerSettings | undefined;
}
/**
 * Optional fields are undefined when the file leaves them out: a new entry then gets the default,
 * an existing one keeps its current value (an operator's `app disable` or `vehicle set` survives
 * a re-apply of a file that does not mention the field).
 */
export interface FleetApplication {
  readonly name: string;
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  readonly signSecret: string | undefined;
  readonly tokenLifetime: number | undefined;
  readonly enabled: boolean | undefined;
  /** `*` or scope names (domain/scopes.ts); undefined: every scope for a new entry, unchanged for an existing one. */
  readonly scopes: readonly Scope[] | '*' | undefined;
}
export interface FleetVehicle {
  readonly vin: string;
  readonly plate: string;
  readonly oem: string;
  readonly model: string;
  readonly year: number;
  readonly status: VehicleStatus | undefined;
  readonly ownership: OwnershipType | undefined;
  readonly fuelCapacity: number | null | undefined;
  readonly sim: VehicleSimSettings | null | undefined;
  /** The vehicle's own tracker (OEMs with the `device` connector). */
  readonly device?: VehicleDevice | null | undefined;
}

export const FLEET_DEFAULTS = Object.freeze({
  tokenLifetime: DEFAULT_TOKEN_LIFETIME,
  enabled: true,
  status: 'active' as VehicleStatus,
  ownership: 'owned' as OwnershipType,
});
export interface FleetCompany {
  readonly id: string;
  readonly name: string;
  readonly plan: string;
  readonly applications: readonly FleetApplication[];
  readonly vehicles: readonly FleetVehicle[];
}
export interface Fleet {
  readonly plans: readonly FleetPlan[];
  readonly oems: readonly FleetOem[];
  readonly companies: readonly FleetCompany[];
}

export interface FleetProblem {
  readonly path: string;
  readonly message: string;
  /** Another change stored the same key first (a unique key taken between the checks and the write). */
  readonly conflict?: boolean;
}

export type FleetValidation =
  | { readonly ok: true; readonly fleet: Fleet }
  | { readonly ok: false; readonly problems: readonly FleetProblem[] };

/** Identifiers of companies, plans, OEMs and applications: short, URL- and shell-safe. */
export const IDENTIFIER_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
export const IDENTIFIER_RULE = '1-64 letters, digits, "_" or "-", starting with a letter or digit';
export const MIN_VEHICLE_YEAR = 1950;
export const MAX_VEHICLE_YEAR = 2100;

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

class Reader {
  readonly problems: FleetProblem[] = [];

  /** Paths hold the file's keys and messages its values: both are escaped, as they get printed. */
  problem(path: string, message: string): void {
    this.problems.push({ path: escapeUnsafeText(path), message: escapeUnsafeText(message) });
  }

  object(value: Json, path: string, allowed: readonly string[]): Record<string, Json> | undefined {
    if (!isObject(value)) {
      this.problem(path, 'must be an object');
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.problem(`${path}.${key}`, 'is not a known field');
    }
    return value;
  }

  list(value: Json, path: string, optional = true): readonly Json[] {
    if (value === undefined && optional) return [];
    if (!Array.isArray(value)) {
      this.problem(path, 'must be a list');
      return [];
    }
    return value;
  }

  text(value: Json, path: string, opts: { pattern?: RegExp; rule?: string; max?: number } = {}): string {
    if (typeof value !== 'string' || value.trim() === '') {
      this.problem(path, 'is required and must be a non-empty string');
      return '';
    }
    if (opts.max !== undefined && value.length > opts.max) this.problem(path, `must be at most ${opts.max} characters`);
    const unsafe = unsafeTextProblem(value);
    if (unsafe !== undefined) this.problem(path, unsafe);
    if (opts.pattern && !opts.pattern.test(value)) this.problem(path, `"${value}" is invalid (${opts.rule})`);
    return value;
  }

  optionalText(value: Json, path: string): string | undefined {
    return value === undefined || value === null ? undefined : this.text(value, path);
  }

  secret(value: Json, path: string): string | undefined {
    const text = this.optionalText(value, path);
    if (text !== undefined && text.length < MIN_SUPPLIED_SECRET_LENGTH) {
      this.problem(path, `must be at least ${MIN_SUPPLIED_SECRET_LENGTH} characters (omit it to have one generated)`);
    }
    return text;
  }

  optionalChoice<T extends string>(value: Json, path: string, choices: readonly T[]): T | undefined {
    return value === undefined ? undefined : this.choice(value, path, choices);
  }

  choice<T extends string>(value: Json, path: string, choices: readonly T[], fallback?: T): T {
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
      this.problem(path, `must be one of ${choices.join(', ')}`);
      return choices[0] as T;
    }
    return value as T;
  }

  integer(value: Json, path: string, min: number, max: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problem(path, `must be an integer from ${min} to ${max}`);
      return min;
    }
    return value;
  }

  optionalInteger(value: Json, path: string, min: number, max: number): number | undefined {
    return value === undefined ? undefined : this.integer(value, path, min, max);
  }

  nameSet(value: Json, path: string, known: readonly string[], what: string): NameSet {
    if (value === '*') return '*';
    if (!Array.isArray(value)) {
      this.problem(path, `must be "*" or a list of ${what} names`);
      return [];
    }
    const names: string[] = [];
    value.forEach((name, i) => {
      if (typeof name !== 'string' || !known.includes(name)) this.problem(`${path}[${i}]`, `unknown ${what} ${JSON.stringify(name)}`);
      else if (!names.includes(name)) names.push(name);
    });
    return names;
  }
}

function readPlan(r: Reader, value: Json, path: string): FleetPlan {
  const o = r.object(value, path, ['name', 'datapoints', 'commands']) ?? {};
  return {
    name: r.text(o.name, `${path}.name`, { pattern: IDENTIFIER_PATTERN, rule: IDENTIFIER_RULE }),
    datapoints: r.nameSet(o.datapoints, `${path}.datapoints`, DATAPOINT_NAMES, 'datapoint'),
    commands: r.nameSet(o.commands, `${path}.commands`, COMMAND_NAMES, 'command'),
  };
}

function readOem(r: Reader, value: Json, path: string): FleetOem {
  const o = r.object(value, path, ['name', 'connector', 'base_url', 'ingest_key', 'datapoints', 'commands', 'immobilizer']) ?? {};
  const connector = r.choice(o.connector, `${path}.connector`, CONNECTOR_KINDS);
  if (o.immobilizer !== undefined && connector !== 'device') r.problem(`${path}.immobilizer`, 'is only for the device connector');
  const baseUrl = r.optionalText(o.base_url, `${path}.base_url`) ?? null;
  if (baseUrl !== null && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(baseUrl)) r.problem(`${path}.base_url`, 'must be an http:// or https:// URL');
  if (connector === 'http' && baseUrl === null) r.problem(`${path}.base_url`, 'is required for the http connector');
  return {
    name: r.text(o.name, `${path}.name`, { pattern: IDENTIFIER_PATTERN, rule: IDENTIFIER_RULE }),
    connector,
    baseUrl,
    ingestKey: r.secret(o.ingest_key, `${path}.ingest_key`),
    datapoints: r.nameSet(o.datapoints, `${path}.datapoints`, DATAPOINT_NAMES, 'datapoint'),
    commands: r.nameSet(o.commands, `${path}.commands`, COMMAND_NAMES, 'command'),
    immobilizer: o.immobilizer === undefined ? undefined : readImmobilizer(r, o.immobilizer, `${path}.immobilizer`),
  };
}

function readImmobilizer(r: Reader, value: Json, path: string): ImmobilizerSettings {
  const o = r.object(value, path, ['output', 'cut']) ?? {};
  return {
    output: o.output === undefined ? 1 : r.integer(o.output, `${path}.output`, 1, MAX_DIGITAL_OUTPUT),
    cut: r.choice(o.cut, `${path}.cut`, ['on', 'off'] as const, 'on'),
  };
}

function readDevice(r: Reader, value: Json, path: string): VehicleDevice | null | undefined {
  if (value === undefined || value === null) return value;
  const o = r.object(value, path, ['protocol', 'id']) ?? {};
  const known = (DEVICE_PROTOCOLS as readonly unknown[]).includes(o.protocol);
  const protocol = r.choice(o.protocol, `${path}.protocol`, DEVICE_PROTOCOLS);
  // The id's rule is the protocol's: with no protocol known there is nothing to check it against.
  const problem = known ? deviceIdProblem(protocol, o.id) : undefined;
  if (problem !== undefined) r.problem(`${path}.id`, problem);
  return { protocol, id: typeof o.id === 'string' ? o.id : '' };
}

function readApplication(r: Reader, value: Json, path: string): FleetApplication {
  const o = r.object(value, path, ['name', 'client_id', 'client_secret', 'sign_secret', 'token_lifetime', 'enabled', 'scopes']) ?? {};
  const clientId = r.optionalText(o.client_id, `${path}.client_id`);
  if (clientId !== undefined && !IDENTIFIER_PATTERN.test(clientId)) r.problem(`${path}.client_id`, `"${clientId}" is invalid (${IDENTIFIER_RULE})`);
  if (o.enabled !== undefined && typeof o.enabled !== 'boolean') r.problem(`${path}.enabled`, 'must be true or false');
  return {
    name: r.text(o.name, `${path}.name`, { pattern: IDENTIFIER_PATTERN, rule: IDENTIFIER_RULE }),
    clientId,
    clientSecret: r.secret(o.client_secret, `${path}.client_secret`),
    signSecret: r.secret(o.sign_secret, `${path}.sign_secret`),
    tokenLifetime: r.optionalInteger(o.token_lifetime, `${path}.token_lifetime`, MIN_TOKEN_LIFETIME, MAX_TOKEN_LIFETIME),
    enabled: typeof o.enabled === 'boolean' ? o.enabled : undefined,
    scopes: readScopes(r, o.scopes, `${path}.scopes`),
  };
}

/** `"*"`, `["*"]` or a list of known scope names. */
function readScopes(r: Reader, value: Json, path: string): readonly Scope[] | '*' | undefined {
  if (value === undefined) return undefined;
  const names = value === ALL_SCOPES_TEXT ? [ALL_SCOPES_TEXT] : value;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    r.problem(path, `must be "*" or a list of scope names (${SCOPES.join(', ')})`);
    return undefined;
  }
  const problem = scopeListProblem(names);
  if (problem !== undefined) {
    r.problem(path, problem);
    return undefined;
  }
  return readScopeList(names).scopes;
}

function readSim(r: Reader, value: Json, path: string): VehicleSimSettings | null | undefined {
  if (value === undefined || value === null) return value;
  const o = r.object(value, path, ['profile', 'telemetry']) ?? {};
  if (o.telemetry !== undefined && typeof o.telemetry !== 'boolean') r.problem(`${path}.telemetry`, 'must be true or false');
  return { profile: r.choice(o.profile, `${path}.profile`, SIM_PROFILES, 'normal'), telemetry: o.telemetry !== false };
}

function readVehicle(r: Reader, value: Json, path: string): FleetVehicle {
  const o = r.object(value, path, ['vin', 'plate', 'oem', 'model', 'year', 'status', 'ownership', 'fuel_capacity', 'sim', 'device']) ?? {};
  if (!isValidVin(o.vin)) r.problem(`${path}.vin`, `${JSON.stringify(o.vin ?? null)} is not a valid VIN (${VIN_RULE})`);
  let fuelCapacity: number | null | undefined = o.fuel_capacity === null ? null : undefined;
  if (o.fuel_capacity !== undefined && o.fuel_capacity !== null) {
    if (typeof o.fuel_capacity !== 'number' || !(o.fuel_capacity > 0 && o.fuel_capacity <= 2000)) {
      r.problem(`${path}.fuel_capacity`, 'must be a number of liters above 0 and at most 2000');
    } else fuelCapacity = o.fuel_capacity;
  }
  return {
    vin: typeof o.vin === 'string' ? o.vin : '',
    plate: r.text(o.plate, `${path}.plate`, { max: 16 }),
    oem: r.text(o.oem, `${path}.oem`),
    model: r.text(o.model, `${path}.model`, { max: 64 }),
    year: r.integer(o.year, `${path}.year`, MIN_VEHICLE_YEAR, MAX_VEHICLE_YEAR),
    status: r.optionalChoice(o.status, `${path}.status`, VEHICLE_STATUSES),
    ownership: r.optionalChoice(o.ownership, `${path}.ownership`, OWNERSHIP_TYPES),
    fuelCapacity,
    sim: readSim(r, o.sim, `${path}.sim`),
    device: readDevice(r, o.device, `${path}.device`),
  };
}

function readCompany(r: Reader, value: Json, path: string): FleetCompany {
  const o = r.object(value, path, ['id', 'name', 'plan', 'applications', 'vehicles']) ?? {};
  return {
    id: r.text(o.id, `${path}.id`, { pattern: IDENTIFIER_PATTERN, rule: IDENTIFIER_RULE }),
    name: r.text(o.name, `${path}.name`, { max: 128 }),
    plan: r.text(o.plan, `${path}.plan`),
    applications: r.list(o.applications, `${path}.applications`).map((a, i) => readApplication(r, a, `${path}.applications[${i}]`)),
    vehicles: r.list(o.vehicles, `${path}.vehicles`).map((v, i) => readVehicle(r, v, `${path}.vehicles[${i}]`)),
  };
}

function checkUnique<T>(r: Reader, items: readonly T[], key: (item: T) => string, path: (i: number) => string, what: string): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    if (k === '') return;
    const first = seen.get(k);
    if (first !== undefined) r.problem(path(i), `duplicate ${what} "${k}" (first at ${path(first)})`);
    else seen.set(k, i);
  });
}

/** Validates a parsed fleet file. References to plans and OEMs not in the file are left to the store. */
export function validateFleetFile(input: Json): FleetValidation {
  const r = new Reader();
  const root = r.object(input, '(file)', ['plans', 'oems', 'companies']) ?? {};
  const plans = r.list(root.plans, 'plans').map((p, i) => readPlan(r, p, `plans[${i}]`));
  const oems = r.list(root.oems, 'oems').map((o, i) => readOem(r, o, `oems[${i}]`));
  const companies = r.list(root.companies, 'companies').map((c, i) => readCompany(r, c, `companies[${i}]`));

  checkUnique(r, plans, (p) => p.name, (i) => `plans[${i}].name`, 'plan');
  checkUnique(r, oems, (o) => o.name, (i) => `oems[${i}].name`, 'OEM');
  checkUnique(r, companies, (c) => c.id, (i) => `companies[${i}].id`, 'company id');
  const vehicles = companies.flatMap((c, ci) => c.vehicles.map((v, vi) => ({ vin: v.vin, path: `companies[${ci}].vehicles[${vi}].vin` })));
  checkUnique(r, vehicles, (v) => v.vin, (i) => vehicles[i]!.path, 'VIN');
  const devices = companies.flatMap((c, ci) => c.vehicles.flatMap((v, vi) => (v.device ? [{ id: v.device.id, path: `companies[${ci}].vehicles[${vi}].device.id` }] : [])));
  checkUnique(r, devices, (d) => d.id, (i) => devices[i]!.path, 'device id');
  const apps = companies.flatMap((c, ci) => c.applications.map((a, ai) => ({ a, path: `companies[${ci}].applications[${ai}]` })));
  checkUnique(r, apps, (x) => x.a.clientId ?? '', (i) => `${apps[i]!.path}.client_id`, 'client_id');
  companies.forEach((c, ci) => checkUnique(r, c.applications, (a) => a.name, (i) => `companies[${ci}].applications[${i}].name`, 'application name'));

  return r.problems.length > 0 ? { ok: false, problems: r.problems } : { ok: true, fleet: { plans, oems, companies } };
}

/** One line per problem; what a problem echoes is escaped, also for problems found against the store. */
export function describeProblems(problems: readonly FleetProblem[]): string {
  return problems.map((p) => escapeUnsafeText(`${p.path}: ${p.message}`)).join('\n');
}
