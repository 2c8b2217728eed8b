/**
 * What a simulated vehicle's own tracker reports at one instant: a Teltonika AVL record with the
 * IO ids D11 maps (FMB family: 239 ignition, 240 movement, 16 odometer m, 66 external voltage mV,
 * 89 CAN fuel %, 85 CAN rpm, 115 CAN engine temperature 0.1 °C, 21 GSM signal), or an OsmAnd
 * location as Traccar Client 9 sends it (speed in m/s). A record taken when the ignition changed
 * names IO 239 as its trigger, as a tracker configured for ignition events does.
 */
import type { AvlRecord } from '../gateway/teltonika/avl-record.js';
import type { SimulatedVehicle } from './simulated-vehicle.js';

const GPS_NOISE_DEG = 0.00002;

export function avlSample(vehicle: SimulatedVehicle, at: number, ignitionChanged: boolean): AvlRecord {
  const r = vehicle.random();
  const io = new Map<number, number>([
    [239, vehicle.ignitionOn ? 1 : 0],
    [240, vehicle.speedKmh > 0 ? 1 : 0],
    [21, 4],
    [66, Math.round(vehicle.lvVoltage * 1000)],
    [16, Math.round(vehicle.odometerKm * 1000)],
    [85, Math.round(vehicle.rpm)],
    // Two's complement over 16 bits: the wire carries every IO value unsigned.
    [115, (Math.round(vehicle.coolantC * 10) + 0x10000) % 0x10000],
  ]);
  if (vehicle.powertrain === 'combustion') io.set(89, Math.round(vehicle.energyPct));
  return {
    timestampMs: at,
    priority: 0,
    latitude: round(vehicle.position.lat + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
    longitude: round(vehicle.position.lon + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
    altitude: 760,
    angle: Math.round(vehicle.heading) % 360,
    satellites: 11,
    speed: Math.round(vehicle.speedKmh),
    eventIoId: ignitionChanged ? 239 : 0,
    io,
  };
}

export interface OsmandLocation {
  readonly timestamp: string;
  readonly coords: { readonly latitude: number; readonly longitude: number; readonly speed: number; readonly heading: number; readonly accuracy: number; readonly altitude: number };
  readonly is_moving: boolean;
  readonly battery: { readonly level: number; readonly is_charging: boolean };
}

export function osmandSample(vehicle: SimulatedVehicle, at: number): OsmandLocation {
  const r = vehicle.random();
  const moving = vehicle.speedKmh > 0;
  return {
    timestamp: new Date(at).toISOString(),
    coords: {
      latitude: round(vehicle.position.lat + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
      longitude: round(vehicle.position.lon + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 7),
      speed: round(vehicle.speedKmh / 3.6, 2),
      // A phone knows no heading while standing still.
      heading: moving ? round(vehicle.heading, 1) : -1,
      accuracy: 5,
      altitude: 760,
    },
    is_moving: moving,
    battery: { level: 0.8, is_charging: true },
  };
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
