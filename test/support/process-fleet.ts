/**
 * A database for tests that run `telematics serve` as a child process: migrated, one company with
 * one application and `vehicles` vehicles of one automaker (`cloudmotors`, at `cloudUrl`, or the
 * service's own simulated one for `'sim'`: its vehicles answer commands and send nothing), and
 * the environment that gives the child the same keys. Request limits are off: load comes from
 * one address by design.
 */
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument } from '../../src/security/keyring.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases.js';

export const PROCESS_APP = {
  clientId: 'process-app',
  secret: 'process-test-client-secret-0123456789abcdef',
  sign: 'process-test-sign-secret-0123456789abcdefgh',
  ingestKey: 'process-test-ingest-key-0123456789abcdefghij',
} as const;

/** `count` VINs with a common prefix: 17 characters, no I, O or Q. */
export const processVins = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(17 - prefix.length, '0')}`);

export interface ProcessFleet {
  readonly database: TestDatabase;
  readonly env: NodeJS.ProcessEnv;
}

export async function prepareProcessFleet(kind: DatabaseKind, cloudUrl: string | 'sim', vins: readonly string[]): Promise<ProcessFleet> {
  const database = await createTestDatabase(kind);
  const doc = generateKeyringDocument();
  const env: NodeJS.ProcessEnv = {
    ...process.env, LOG_LEVEL: 'info', TELEMATICS_JWT_KEYS: doc.jwt[0]!.secret, TELEMATICS_MASTER_KEYS: doc.master[0]!.key,
    TELEMATICS_TOKEN_RATE_ADDRESS: '0', TELEMATICS_TOKEN_RATE_CLIENT: '0', TELEMATICS_COMMAND_RATE_APP: '0',
  };
  const store = openStore(database.url, { poolSize: 2 });
  try {
    await migrateToLatest(store);
    const fleet = validateFleetFile({
      plans: [{ name: 'full', datapoints: '*', commands: '*' }],
      oems: [{ name: 'cloudmotors', ...(cloudUrl === 'sim' ? { connector: 'sim' } : { connector: 'http', base_url: cloudUrl }), ingest_key: PROCESS_APP.ingestKey, datapoints: '*', commands: '*' }],
      companies: [{ id: 'process', name: 'Process Co', plan: 'full',
        applications: [{ name: 'app', client_id: PROCESS_APP.clientId, client_secret: PROCESS_APP.secret, sign_secret: PROCESS_APP.sign }],
        vehicles: vins.map((vin, i) => ({
          vin, plate: `PRC${i}`, oem: 'cloudmotors', model: 'M', year: 2024, fuel_capacity: 50,
          ...(cloudUrl === 'sim' ? { sim: { profile: 'normal', telemetry: false } } : {}),
        })) }],
    });
    if (!fleet.ok) throw new Error(JSON.stringify(fleet.problems));
    await applyFleet(store.db, fleet.fleet, keyringFromDocument(doc, 'test'), Date.now());
  } finally {
    await store.close();
  }
  return { database, env };
}

/** A token for the fleet's application from a running service. */
export async function processToken(url: string): Promise<string> {
  const res = await fetch(`${url}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: PROCESS_APP.clientId, client_secret: PROCESS_APP.secret }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}
