/** The fleet most HTTP tests run against: two companies, several applications, known secrets. */
export const SECRETS = {
  alphaDispatch: { client: 'alpha-dispatch-client-secret-0123456789abcdef', sign: 'alpha-dispatch-sign-secret-0123456789abcdef' },
  alphaReports: { client: 'alpha-reports-client-secret-0123456789abcdef', sign: 'alpha-reports-sign-secret-0123456789abcdef' },
  alphaShort: { client: 'alpha-short-lived-client-secret-0123456789ab', sign: 'alpha-short-lived-sign-secret-0123456789abcd' },
  alphaOff: { client: 'alpha-disabled-client-secret-0123456789abcdef', sign: 'alpha-disabled-sign-secret-0123456789abcdef' },
  betaOps: { client: 'beta-ops-client-secret-0123456789abcdefghijk', sign: 'beta-ops-sign-secret-0123456789abcdefghijklm' },
  ingest: 'sim-ingest-key-0123456789abcdefghijklmnopqrstuv',
} as const;

export const ALPHA_VINS = ['9BWZZZ377VT100001', '9BD17164LB5100002', '93HFB9640PZ100003'] as const;
export const BETA_VINS = ['9BWAB45U8NT100004', '9BWCA05W7RP100005'] as const;

export interface FleetJsonVehicle {
  vin: string; plate: string; oem: string; model: string; year: number;
  status?: string; ownership?: string; fuel_capacity?: number; sim?: { profile?: string; telemetry?: boolean };
  device?: { protocol: string; id: string };
}
export interface FleetJsonApplication {
  name: string; client_id?: string; client_secret?: string; sign_secret?: string; token_lifetime?: number; enabled?: boolean;
}
export interface FleetJsonCompany {
  id: string; name: string; plan: string; applications: FleetJsonApplication[]; vehicles: FleetJsonVehicle[];
}
export interface FleetJson {
  plans: { name: string; datapoints: string | string[]; commands: string | string[] }[];
  oems: Record<string, unknown>[];
  companies: FleetJsonCompany[];
}

export function fixtureFleet(): FleetJson {
  return {
    plans: [
      { name: 'full', datapoints: '*', commands: '*' },
      { name: 'basic', datapoints: ['vin', 'date_time', 'speed'], commands: ['diagnostics'] },
    ],
    oems: [
      { name: 'simmotors', connector: 'sim', ingest_key: SECRETS.ingest, datapoints: '*', commands: '*' },
      { name: 'othermotors', connector: 'http', base_url: 'http://127.0.0.1:9/', datapoints: ['vin', 'speed'], commands: ['diagnostics'] },
    ],
    companies: [
      {
        id: 'alpha', name: 'Alpha Logistics', plan: 'full',
        applications: [
          { name: 'dispatch', client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client, sign_secret: SECRETS.alphaDispatch.sign },
          { name: 'reports', client_id: 'alpha-reports', client_secret: SECRETS.alphaReports.client, sign_secret: SECRETS.alphaReports.sign },
          { name: 'short', client_id: 'alpha-short', client_secret: SECRETS.alphaShort.client, sign_secret: SECRETS.alphaShort.sign, token_lifetime: 60 },
          { name: 'off', client_id: 'alpha-off', client_secret: SECRETS.alphaOff.client, sign_secret: SECRETS.alphaOff.sign, enabled: false },
        ],
        vehicles: [
          { vin: ALPHA_VINS[0], plate: 'ABC1D23', oem: 'simmotors', model: 'Gol', year: 2022, status: 'active', ownership: 'owned', fuel_capacity: 55, sim: { profile: 'normal', telemetry: true } },
          { vin: ALPHA_VINS[1], plate: 'FUN2E45', oem: 'simmotors', model: 'Strada', year: 2023, status: 'inactive', ownership: 'financed', fuel_capacity: 55 },
          { vin: ALPHA_VINS[2], plate: 'EVA4G89', oem: 'othermotors', model: 'Volt E1', year: 2024, ownership: 'rental' },
        ],
      },
      {
        id: 'beta', name: 'Beta Transportes', plan: 'basic',
        applications: [
          { name: 'ops', client_id: 'beta-ops', client_secret: SECRETS.betaOps.client, sign_secret: SECRETS.betaOps.sign },
        ],
        vehicles: [
          { vin: BETA_VINS[0], plate: 'GLX5H12', oem: 'simmotors', model: 'Polo', year: 2022, ownership: 'rental' },
          { vin: BETA_VINS[1], plate: 'GLX6J34', oem: 'simmotors', model: 'Saveiro', year: 2024 },
        ],
      },
    ],
  };
}
