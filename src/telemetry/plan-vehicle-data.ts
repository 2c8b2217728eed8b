/**
 * Everything POST /vehicle-data decides before the first byte is sent, in D7's order: VIN count,
 * dates, VIN ownership, datapoint names, OEM support, package plan, and whether there is any data.
 */
import { allows, parseNameSet } from '../domain/capabilities.js';
import { resolveDataWindow, type DataWindow } from '../domain/data-window.js';
import { isKnownDatapoint } from '../domain/datapoints.js';
import { errors, ServiceError } from '../domain/errors.js';
import { formatIsoLocal } from '../domain/time.js';
import type { Db } from '../store/connection.js';
import { findCompany, findPlan, listOems } from '../store/registry-queries.js';
import { anyTelemetry } from '../store/telemetry/read.js';
import { findAllCompanyVehicles } from '../store/vehicles-queries.js';

export const MAX_VINS = 20;

export interface VehicleDataRequest {
  readonly vins: readonly string[];
  readonly datapoints: readonly string[];
  readonly start_date?: string | undefined;
  readonly end_date?: string | undefined;
}

export interface VehicleDataPlan {
  /** Requested VINs without duplicates, in request order. */
  readonly vins: readonly string[];
  /** Requested datapoints without duplicates, in request order. */
  readonly datapoints: readonly string[];
  readonly window: DataWindow;
}

const unique = (items: readonly string[]) => [...new Set(items)];

export async function planVehicleData(db: Db, companyId: string, request: VehicleDataRequest, now: number): Promise<VehicleDataPlan> {
  const vins = unique(request.vins);
  if (vins.length > MAX_VINS) throw new ServiceError(errors.tooManyVins);
  const window = resolveDataWindow(request.start_date, request.end_date, now);

  const vehicles = await findAllCompanyVehicles(db, companyId, vins);
  if (!vehicles) throw new ServiceError(errors.vinNotFound);

  const datapoints = unique(request.datapoints);
  const unknown = datapoints.find((d) => !isKnownDatapoint(d));
  if (unknown !== undefined) throw new ServiceError(errors.unknownDatapoint, { name: unknown });

  const oems = new Map((await listOems(db)).map((o) => [o.name, parseNameSet(o.datapoints)]));
  for (const vehicle of vehicles.values()) {
    const supported = oems.get(vehicle.oem) ?? [];
    if (datapoints.some((d) => !allows(supported, d))) throw new ServiceError(errors.unsupportedDatapoint);
  }
  const company = await findCompany(db, companyId);
  const plan = company ? await findPlan(db, company.plan) : undefined;
  const planned = plan ? parseNameSet(plan.datapoints) : [];
  if (datapoints.some((d) => !allows(planned, d))) throw new ServiceError(errors.datapointNotInPlan);

  if (!(await anyTelemetry(db, vins, window.start, window.end))) {
    throw new ServiceError(errors.noData, { start: formatIsoLocal(window.start), end: formatIsoLocal(window.end) });
  }
  return { vins, datapoints, window };
}
