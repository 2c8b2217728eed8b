/**
 * The demo fleet `serve --demo` seeds into an empty database: two companies on different plans,
 * each with one application and a few vehicles of two simulated automakers, and (ACME) a truck
 * with a Teltonika tracker, a pickup with a GT06/Concox tracker and a van tracked by a phone app,
 * whose simulated devices speak the real protocols to the gateway.
 * Demo secrets are derived from the master key rather than stored anywhere in clear, so every
 * start can print the same ready-to-paste credentials while the database keeps only hashes.
 */
import type { Fleet } from '../domain/fleet-file.js';
import type { Keyring } from '../security/keyring.js';
import { deriveSecret, simulatedIngestKey } from '../security/derived-secrets.js';

export interface DemoApplication {
  readonly companyId: string;
  readonly companyName: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly signSecret: string;
}

/** The demo automaker whose ingest key the demo hands out (demo.env) for pushing records by hand. */
export const DEMO_INGEST_OEM = 'simmotors';
/** The demo's trackers (demo.env names the phone, for sending a position by hand). */
export const DEMO_TRACKERS = Object.freeze({
  truck: { vin: '9BSR4X20003123456', imei: '356307042441013' },
  van: { vin: '9BD26550JP9123456', phone: '48241179' },
  pickup: { vin: '9BFZB55P0N8123456', imei: '359632104567893' },
});

const demoSecret = (keyring: Keyring, label: string, prefix: string) => deriveSecret(keyring, `demo:${label}`, prefix);

export function demoApplications(keyring: Keyring): DemoApplication[] {
  return [
    { companyId: 'acme', companyName: 'ACME Logistics', clientId: 'demo-acme-dispatch' },
    { companyId: 'globex', companyName: 'Globex Transportes', clientId: 'demo-globex-ops' },
  ].map((a) => ({
    ...a,
    clientSecret: demoSecret(keyring, `${a.clientId}:client`, 'tcs_'),
    signSecret: demoSecret(keyring, `${a.clientId}:sign`, 'tss_'),
  }));
}


export function demoFleet(keyring: Keyring): Fleet {
  const [acme, globex] = demoApplications(keyring) as [DemoApplication, DemoApplication];
  const sim = (profile: 'normal' | 'moving' | 'offline') => ({ profile, telemetry: true });
  const app = (name: string, a: DemoApplication) => ({
    name, clientId: a.clientId, clientSecret: a.clientSecret, signSecret: a.signSecret, tokenLifetime: 3600, enabled: true, scopes: undefined,
  });
  return {
    plans: [
      { name: 'full', datapoints: '*', commands: '*' },
      { name: 'basic', datapoints: ['vin', 'date_time', 'speed', 'latitude', 'longitude', 'flag'], commands: ['diagnostics'] },
    ],
    oems: [
      {
        name: 'simmotors', connector: 'sim', baseUrl: null, ingestKey: simulatedIngestKey(keyring, 'simmotors'), datapoints: '*',
        commands: ['diagnostics', 'enable_ignition', 'disable_ignition', 'lock_doors', 'unlock_doors', 'locate'],
      },
      { name: 'voltara', connector: 'sim', baseUrl: null, ingestKey: simulatedIngestKey(keyring, 'voltara'), datapoints: '*', commands: '*' },
      // Aftermarket trackers: what they report is D11's mapping, and OsmAnd phones take no command.
      {
        name: 'trackers', connector: 'device', baseUrl: null, ingestKey: undefined,
        datapoints: ['vin', 'date_time', 'speed', 'latitude', 'longitude', 'heading', 'rpm', 'odometer', 'fuel_level', 'engine_cooling_temperature', 'lv_battery_voltage', 'event', 'flag'],
        commands: ['diagnostics', 'enable_ignition', 'disable_ignition'],
      },
    ],
    companies: [
      {
        id: acme.companyId, name: acme.companyName, plan: 'full', applications: [app('dispatch', acme)],
        vehicles: [
          { vin: '9BWZZZ377VT004251', plate: 'ABC1D23', oem: 'simmotors', model: 'Gol', year: 2022, status: 'active', ownership: 'owned', fuelCapacity: 55, sim: sim('normal') },
          { vin: '9BD17164LB5123456', plate: 'FUN2E45', oem: 'simmotors', model: 'Strada', year: 2023, status: 'active', ownership: 'financed', fuelCapacity: 55, sim: sim('normal') },
          { vin: '9BGKS48U0MG123456', plate: 'RIO3F67', oem: 'simmotors', model: 'Onix', year: 2021, status: 'active', ownership: 'leased', fuelCapacity: 44, sim: sim('moving') },
          { vin: '93HFB9640PZ100001', plate: 'EVA4G89', oem: 'voltara', model: 'Volt E1', year: 2024, status: 'active', ownership: 'owned', fuelCapacity: null, sim: sim('normal') },
          {
            vin: DEMO_TRACKERS.truck.vin, plate: 'TRK7K01', oem: 'trackers', model: 'R 450', year: 2021, status: 'active', ownership: 'owned', fuelCapacity: 400,
            sim: sim('normal'), device: { protocol: 'teltonika', id: DEMO_TRACKERS.truck.imei },
          },
          {
            vin: DEMO_TRACKERS.van.vin, plate: 'FIO8L23', oem: 'trackers', model: 'Fiorino', year: 2023, status: 'active', ownership: 'leased', fuelCapacity: 48,
            sim: sim('normal'), device: { protocol: 'osmand', id: DEMO_TRACKERS.van.phone },
          },
          {
            vin: DEMO_TRACKERS.pickup.vin, plate: 'RNG9M45', oem: 'trackers', model: 'Ranger', year: 2022, status: 'active', ownership: 'owned', fuelCapacity: 80,
            sim: sim('normal'), device: { protocol: 'gt06', id: DEMO_TRACKERS.pickup.imei },
          },
        ],
      },
      {
        id: globex.companyId, name: globex.companyName, plan: 'basic', applications: [app('ops', globex)],
        vehicles: [
          { vin: '9BWAB45U8NT000777', plate: 'GLX5H12', oem: 'simmotors', model: 'Polo', year: 2022, status: 'active', ownership: 'rental', fuelCapacity: 52, sim: sim('normal') },
          { vin: '9BWCA05W7RP011223', plate: 'GLX6J34', oem: 'simmotors', model: 'Saveiro', year: 2024, status: 'inactive', ownership: 'owned', fuelCapacity: 55, sim: sim('offline') },
        ],
      },
    ],
  };
}
