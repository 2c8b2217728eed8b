/**
 * The vehicles `telematics oem-sim` drives when run as its own process: from a fleet file, every
 * vehicle of an OEM with the `sim` connector, or of an `http` OEM that has a `sim` block (an OEM
 * pointed at this process's cloud), and every vehicle of a `device` OEM with a `sim` block and a
 * device (its simulated tracker connects to the service's gateway); those with
 * `sim.telemetry: false` send nothing but answer commands. Without a database there is nothing to
 * resume from: each run starts afresh.
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
  const otherOems = new Map(fleet.oems.filter((o) => o.connector === 'http').map((o) => [o.name, o.ingestKey ?? fallbackKey]));
  const deviceOems = new Set(fleet.oems.filter((o) => o.connector === 'device').map((o) => o.name));
  const vehicles: SimulatedFleetVehicle[] = [];
  for (const company of fleet.companies) {
    for (const v of company.vehicles) {
      if (deviceOems.has(v.oem)) {
        if (!v.sim || !v.device) continue;
        vehicles.push({
          oem: v.oem, ingestKey: '', from, telemetry: v.sim.telemetry !== false, tracker: v.device,
          start: { vin: v.vin, powertrain: v.fuelCapacity ? 'combustion' : 'electric', profile: v.sim.profile, tankLiters: v.fuelCapacity ?? 0 },
        });
        continue;
      }
      const simulated = simOems.has(v.oem) || (otherOems.has(v.oem) && v.sim);
      if (!simulated) continue;
      const ingestKey = simOems.get(v.oem) ?? otherOems.get(v.oem);
      if (ingestKey === undefined) throw new MissingIngestKey(v.oem);
      vehicles.push({
        oem: v.oem, ingestKey, from, telemetry: v.sim?.telemetry !== false,
        start: { vin: v.vin, powertrain: v.fuelCapacity ? 'combustion' : 'electric', profile: v.sim?.profile ?? 'normal', tankLiters: v.fuelCapacity ?? 0 },
      });
    }
  }
  return vehicles;
}
