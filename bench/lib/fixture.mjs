/**
 * What every suite starts from: a fresh database (SQLite file or PostgreSQL database), migrated,
 * holding one company with `vehicles` vehicles of one OEM, and the keys the service will run
 * with. Built through the same code the operator's `telematics admin apply` runs.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalCommandBody } from '../../dist/domain/command-signature.js';
import { validateFleetFile } from '../../dist/domain/fleet-file.js';
import { applyFleet } from '../../dist/registry/apply-fleet.js';
import { keyringFromLists } from '../../dist/security/keyring.js';
import { migrateToLatest } from '../../dist/store/migrate.js';
import { openStore } from '../../dist/store/open-store.js';
import { createBenchDatabase } from './database.mjs';

export const CLIENT_ID = 'bench-app';
export const CLIENT_SECRET = 'bench-client-secret-0123456789abcdefghij';
export const SIGN_SECRET = 'bench-sign-secret-0123456789abcdefghijklm';
export const INGEST_KEY = 'bench-ingest-key-0123456789abcdefghijklmn';
export const OEM = 'benchmotors';

/** The n-th bench VIN: 17 characters, valid by the service's rule, sorted like n. */
export const vinOf = (n) => `9BWBENCH${String(n).padStart(9, '0')}`;

export const signatureOf = (vin, command) => createHmac('sha256', SIGN_SECRET).update(canonicalCommandBody(vin, command)).digest('hex');

export function fleetDocument({ vehicles, from = 0, oemBaseUrl, simTelemetry = false }) {
  return {
    plans: [{ name: 'full', datapoints: '*', commands: '*' }],
    oems: [{ name: OEM, connector: 'http', base_url: oemBaseUrl ?? 'http://127.0.0.1:9', ingest_key: INGEST_KEY, datapoints: '*', commands: '*' }],
    companies: [{
      id: 'bench', name: 'Bench Fleet', plan: 'full',
      applications: [{ name: 'bench', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, sign_secret: SIGN_SECRET }],
      vehicles: Array.from({ length: vehicles }, (_, i) => ({
        vin: vinOf(from + i), plate: `BEN${String(from + i).padStart(5, '0')}`, oem: OEM, model: 'Bench', year: 2024, fuel_capacity: 50,
        sim: { profile: 'normal', telemetry: simTelemetry },
      })),
    }],
  };
}

/**
 * A fresh database with `vehicles` registered. Resolves to its URL, the keys to serve it with,
 * an open store (close it before `drop`), a scratch folder, and `drop()`.
 */
export async function createFixture({ kind, adminUrl, vehicles, oemBaseUrl, simTelemetry }) {
  const database = await createBenchDatabase(kind, adminUrl);
  const scratch = mkdtempSync(join(tmpdir(), 'telematics-bench-scratch-'));
  const keys = { jwt: randomBytes(32).toString('base64'), master: randomBytes(32).toString('base64') };
  const keyring = keyringFromLists(keys.jwt, keys.master, 'bench');
  const store = openStore(database.url, { poolSize: 10 });
  await migrateToLatest(store);
  const document = fleetDocument({ vehicles, oemBaseUrl, simTelemetry });
  const fleetFile = join(scratch, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify(document));
  await register(store, keyring, document);
  return {
    url: database.url, keys, keyring, store, scratch, fleetFile,
    /** Registers more vehicles (numbered from `from`), as a re-apply of a grown fleet file would. */
    async addVehicles(from, count) {
      const grown = fleetDocument({ vehicles: from + count, oemBaseUrl, simTelemetry });
      await register(store, keyring, grown);
    },
    async drop() {
      await store.close().catch(() => {});
      rmSync(scratch, { recursive: true, force: true });
      await database.drop();
    },
  };
}

async function register(store, keyring, document) {
  const fleet = validateFleetFile(document);
  if (!fleet.ok) throw new Error(`bench fleet invalid: ${JSON.stringify(fleet.problems)}`);
  await applyFleet(store.db, fleet.fleet, keyring, Date.now());
}

/** A bearer token from the running service's POST /token. */
export async function tokenFrom(serviceUrl) {
  const res = await fetch(`${serviceUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: `client_id=${CLIENT_ID}&client_secret=${CLIENT_SECRET}`,
  });
  if (!res.ok) throw new Error(`POST /token: ${res.status} ${await res.text()}`);
  return (await res.json()).token;
}
