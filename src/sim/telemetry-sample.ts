/**
 * What a simulated vehicle reports at one instant, in the ingest format. A small rate of glitched
 * values (out of range, wrong type) exercises the quality flags of D8, as real sensors do.
 */
import { SimulatedVehicle } from './simulated-vehicle.js';

export type IngestRecord = Record<string, string | number | null>;

const round = (value: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/** Plausible faults, each breaking one datapoint the way real telematics units do. */
const GLITCHES: readonly ((record: IngestRecord) => void)[] = [
  (r) => { r.speed = 999; },
  (r) => { r.lv_battery_voltage = -1; },
  (r) => { r.latitude = 123.456; },
  (r) => { r.rpm = 'ERR'; },
  (r) => { r.engine_cooling_temperature = 255; },
  (r) => { r.left_rear_tire_pressure = 'n/a'; },
];

/** GPS noise on the reported position (about 2 m), so a parked vehicle does not sit perfectly still. */
const GPS_NOISE_DEG = 0.00002;

export function sampleTelemetry(vehicle: SimulatedVehicle, at: number, glitchRate: number): IngestRecord {
  const r = vehicle.random();
  const record: IngestRecord = {
    vin: vehicle.vin,
    date_time: new Date(at).toISOString().replace('.000Z', 'Z'),
    speed: round(vehicle.speedKmh, 1),
    latitude: round(vehicle.position.lat + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 6),
    longitude: round(vehicle.position.lon + r.between(-GPS_NOISE_DEG, GPS_NOISE_DEG), 6),
    heading: round(vehicle.heading, 1),
    rpm: Math.round(vehicle.rpm),
    odometer: round(vehicle.odometerKm, 3),
    range: round(vehicle.rangeKm, 1),
    left_front_tire_pressure: round(vehicle.tires[0], 1),
    right_front_tire_pressure: round(vehicle.tires[1], 1),
    left_rear_tire_pressure: round(vehicle.tires[2], 1),
    right_rear_tire_pressure: round(vehicle.tires[3], 1),
    engine_cooling_temperature: round(vehicle.coolantC, 1),
    lv_battery_voltage: round(vehicle.lvVoltage, 2),
    seat_belt_status: vehicle.ignitionOn ? 'buckled' : 'not buckled',
  };
  if (vehicle.powertrain === 'combustion') {
    record.fuel_level = round(vehicle.energyPct, 2);
    record.oil_level = round(vehicle.oilPct, 1);
  } else {
    record.hv_battery_soc = round(vehicle.energyPct, 2);
    record.hv_battery_voltage = round(340 + vehicle.energyPct * 0.6, 1);
    record.hv_battery_charging_status = vehicle.activity === 'charging' ? 'charging' : 'other';
  }
  if (vehicle.event !== null) record.event = vehicle.event;
  if (glitchRate > 0 && r.chance(glitchRate)) r.pick(GLITCHES)(record);
  return record;
}
