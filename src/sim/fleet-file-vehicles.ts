/**
 * The vehicles `telematics oem-sim` drives when run as its own process: from a fleet file, every
 * vehicle of an OEM with the `sim` connector whose `sim.telemetry` is not false. Without a
 * database there is nothing to resume from, so each run starts its vehicles afresh.
 */
import type { Fleet } from '../domain/fleet-file.js';
import type { SimulatedFleetVehicle } from './fleet-simulator.js';

export class MissingIngestKey extends Error {
  constructor(oem: string) {
    super(`OEM "${oem}" has no ingest_key in the fleet file; pass --ingest-key`);
    this.name = 'MissingIngestKey';
  }
}

export function fleetFileVehicles(fleet: Fleet, from: number, fallbackKey: string | undefined): SimulatedFleetVehicle[] {
  const simOems = new Map(fleet.oems.filter((o) => o.connector === 'sim').map((o) => [o.name, o.ingestKey ?? fallbackKey]));
  const vehicles: SimulatedFleetVehicle[] = [];
  for (const company of fleet.companies) {
    for (const v of company.vehicles) {
      if (!simOems.has(v.oem) || v.sim?.telemetry === false) continue;
      const ingestKey = simOems.get(v.oem);
      if (ingestKey === undefined) throw new MissingIngestKey(v.oem);
      vehicles.push({
        oem: v.oem, ingestKey, from,
        start: { vin: v.vin, powertrain: v.fuelCapacity ? 'combustion' : 'electric', profile: v.sim?.profile ?? 'normal', tankLiters: v.fuelCapacity ?? 0 },
      });
    }
  }
  return vehicles;
}
