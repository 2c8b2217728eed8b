/**
 * Which stored vehicles the in-process simulator drives: every vehicle of an OEM with the `sim`
 * connector, and every vehicle of a `device` OEM that has a `sim` block (its simulated tracker
 * speaks the real protocol to the gateway); those with `sim.telemetry: false` live (and answer
 * commands) but send nothing. Each resumes where its stored data ends, so the
 * odometer never runs backwards across restarts; a vehicle with no data starts `backfillMs` ago.
 * A vehicle without a fuel capacity is simulated as electric.
 */
import type { VehicleSimSettings } from '../domain/vehicle.js';
import { isDeviceProtocol, type DeviceProtocol } from '../domain/trackers.js';
import type { Keyring } from '../security/keyring.js';
import { simulatedIngestKey } from '../security/derived-secrets.js';
import type { Db } from '../store/connection.js';
import { listOems } from '../store/registry-queries.js';
import { latestPositionedTelemetry, latestTelemetryTs } from '../store/telemetry/read.js';
import { listAllVehicles } from '../store/vehicles-queries.js';
import type { SimulatedFleetVehicle } from './fleet-simulator.js';

export async function loadSimulatedFleet(
  db: Db, keyring: Keyring, now: number, backfillMs: number, periodMs: number, alreadySimulated: ReadonlySet<string> = new Set(),
): Promise<SimulatedFleetVehicle[]> {
  const oems = await listOems(db);
  const simOems = new Set(oems.filter((o) => o.connector === 'sim').map((o) => o.name));
  const deviceOems = new Set(oems.filter((o) => o.connector === 'device').map((o) => o.name));
  const fleet: SimulatedFleetVehicle[] = [];
  for (const v of await listAllVehicles(db)) {
    const tracked = deviceOems.has(v.oem) && v.sim !== null && isDeviceProtocol(v.deviceProtocol) && v.deviceId !== null;
    if (!simOems.has(v.oem) && !tracked) continue;
    const sim = v.sim ? (JSON.parse(v.sim) as VehicleSimSettings) : { profile: 'normal' as const, telemetry: true };
    // A vehicle already simulated needs only its settings: where it is, the simulator knows.
    const known = alreadySimulated.has(v.vin);
    const last = known ? undefined : await latestPositionedTelemetry(db, v.vin);
    const lastTs = known ? undefined : await latestTelemetryTs(db, v.vin);
    const electric = v.fuelCapacity === null;
    fleet.push({
      telemetry: sim.telemetry,
      tracker: tracked ? { protocol: v.deviceProtocol as DeviceProtocol, id: v.deviceId! } : undefined,
      oem: v.oem,
      ingestKey: simulatedIngestKey(keyring, v.oem),
      from: lastTs === undefined ? now - backfillMs : Math.max(lastTs + periodMs, now - backfillMs),
      start: {
        vin: v.vin,
        powertrain: electric ? 'electric' : 'combustion',
        profile: sim.profile,
        tankLiters: v.fuelCapacity ?? 0,
        ...(last ? {
          resume: {
            position: { lat: last.latitude!, lon: last.longitude! },
            odometerKm: last.odometer!,
            energyPct: electric ? last.hv_battery_soc : last.fuel_level,
          },
        } : {}),
      },
    });
  }
  return fleet;
}
