/**
 * The operator API's shapes: registry rows as the fleet file spells them (snake_case, `*` for
 * every name), never a secret or its hash; and the registry's mistakes as the catalogue's 4xx.
 */
import { parseNameSet } from '../../domain/capabilities.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { RegistryError } from '../../registry/manage-applications.js';
import type { ApplicationRow } from '../../store/applications-queries.js';
import type { CompanyRow, OemRow, PlanRow } from '../../store/registry-queries.js';
import type { VehicleRecord } from '../../store/vehicles-queries.js';
import { formatIsoLocal } from '../../domain/time.js';

export const planAnswer = (p: PlanRow) => ({ name: p.name, datapoints: parseNameSet(p.datapoints), commands: parseNameSet(p.commands) });

export const oemAnswer = (o: OemRow) => ({
  name: o.name, connector: o.connector, base_url: o.base_url, datapoints: parseNameSet(o.datapoints), commands: parseNameSet(o.commands),
});

export const companyAnswer = (c: CompanyRow) => ({ id: c.id, name: c.name, plan: c.plan });

export const vehicleAnswer = (v: VehicleRecord) => ({
  company: v.companyId, vin: v.vin, plate: v.plate, oem: v.oem, model: v.model, year: v.year, status: v.status, ownership: v.ownership,
  fuel_capacity: v.fuelCapacity, sim: v.sim ? (JSON.parse(v.sim) as unknown) : null,
  device: v.deviceId === null ? null : { protocol: v.deviceProtocol, id: v.deviceId }, created_at: formatIsoLocal(Number(v.createdAt)),
});

export const applicationAnswer = (a: ApplicationRow) => ({
  company: a.company_id, name: a.name, client_id: a.client_id, enabled: a.enabled === 1, token_lifetime: a.token_lifetime,
  scopes: a.scopes, has_sign_secret: a.sign_secret_sealed !== null, created_at: formatIsoLocal(Number(a.created_at)),
});

/** The use case's answer, or its registry mistake as a 400, 404 or 409 naming the field. */
export async function registryCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof RegistryError)) throw error;
    const entry = error.kind === 'unknown' ? errors.registryEntryNotFound : error.kind === 'exists' ? errors.registryEntryExists : errors.registryEntryInvalid;
    throw new ServiceError(entry, { problem: error.message });
  }
}
