/** The fixture fleet plus a `device` OEM with trackers: two Teltonika vehicles and a phone (OsmAnd). */
import type { AvlRecord } from '../../src/gateway/teltonika/avl-record.js';
import { fixtureFleet, type FleetJson } from './fixture-fleet.js';

export const TRACKED = {
  teltonika: { vin: '9BWTRK00000000001', imei: '356307042441013' },
  silent: { vin: '9BWTRK00000000002', imei: '356307042441014' },
  phone: { vin: '9BWTRK00000000003', id: '48241179' },
} as const;

export function trackerFleet(): FleetJson {
  const fleet = fixtureFleet();
  fleet.oems.push({ name: 'trackers', connector: 'device', datapoints: '*', commands: ['diagnostics', 'disable_ignition', 'enable_ignition'] });
  fleet.companies[0]!.vehicles.push(
    { vin: TRACKED.teltonika.vin, plate: 'TRK1A11', oem: 'trackers', model: 'Cargo', year: 2021, fuel_capacity: 60, device: { protocol: 'teltonika', id: TRACKED.teltonika.imei } },
    { vin: TRACKED.silent.vin, plate: 'TRK2B22', oem: 'trackers', model: 'Cargo', year: 2021, device: { protocol: 'teltonika', id: TRACKED.silent.imei } },
    { vin: TRACKED.phone.vin, plate: 'TRK3C33', oem: 'trackers', model: 'Fiorino', year: 2020, device: { protocol: 'osmand', id: TRACKED.phone.id } },
  );
  return fleet;
}

/** A record as an FMB tracker takes it: fix, position, speed, and the IO ids D11 maps. */
export function avlRecord(timestampMs: number, fields: {
  lat?: number; lon?: number; speed?: number; angle?: number; satellites?: number; ignition?: boolean;
  odometerM?: number; voltageMv?: number; fuelPct?: number; eventIoId?: number; hdopTenths?: number;
} = {}): AvlRecord {
  const io = new Map<number, number>([[239, fields.ignition === false ? 0 : 1], [66, fields.voltageMv ?? 12_800], [16, fields.odometerM ?? 1_000_000], [89, fields.fuelPct ?? 50]]);
  if (fields.hdopTenths !== undefined) io.set(182, fields.hdopTenths);
  return {
    timestampMs, priority: 0, latitude: fields.lat ?? -23.55, longitude: fields.lon ?? -46.63, altitude: 760, angle: fields.angle ?? 90,
    satellites: fields.satellites ?? 9, speed: fields.speed ?? 0, eventIoId: fields.eventIoId ?? 0, io,
  };
}
