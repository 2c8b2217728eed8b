/**
 * What a company may read of each of its vehicles (the plan ∩ the vehicle OEM's datapoints,
 * D10), for the events that carry datapoints (domain/event-visibility.ts). A VIN the company no
 * longer has reads nothing: its events keep what carries no datapoint.
 */
import { allows, parseNameSet, type NameSet } from '../domain/capabilities.js';
import type { DatapointAllowed } from '../domain/event-visibility.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findCompany, findPlan, listOems } from '../store/registry-queries.js';
import { companyVehicleOems } from '../store/vehicles-queries.js';

const NOTHING: DatapointAllowed = () => false;

export async function datapointAllowances(store: StoreConnection, companyId: string, vins: Iterable<string>): Promise<Map<string, DatapointAllowed>> {
  const wanted = [...new Set(vins)];
  const allowances = new Map<string, DatapointAllowed>();
  if (wanted.length === 0) return allowances;
  const [allowedFor, vehicleOems] = await Promise.all([datapointAllowancesByOem(store, companyId), companyVehicleOems(store.db, companyId, wanted)]);
  for (const vin of wanted) allowances.set(vin, allowedFor(vehicleOems.get(vin) ?? ''));
  return allowances;
}

/**
 * What a company may read of a vehicle of each automaker, for a whole fleet at once (no VIN
 * list, however large the fleet): an unknown automaker reads nothing.
 */
export async function datapointAllowancesByOem(store: StoreConnection, companyId: string): Promise<(oem: string) => DatapointAllowed> {
  const [plan, oems] = await Promise.all([
    cachedRegistryRead(store, `plan-datapoints:${companyId}`, () => planDatapoints(store, companyId)),
    cachedRegistryRead(store, 'oem-datapoints', async () => new Map((await listOems(store.db)).map((o) => [o.name, parseNameSet(o.datapoints)]))),
  ]);
  return (oem) => {
    const provided = oems.get(oem);
    return provided === undefined ? NOTHING : (d) => allows(plan, d) && allows(provided, d);
  };
}

async function planDatapoints(store: StoreConnection, companyId: string): Promise<NameSet> {
  const company = await findCompany(store.db, companyId);
  const plan = company ? await findPlan(store.db, company.plan) : undefined;
  return plan ? parseNameSet(plan.datapoints) : [];
}
