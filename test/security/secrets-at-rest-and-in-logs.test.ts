/**
 * A full run of the service process at log level trace, every route used the right way and the
 * wrong way, then two greps: its whole output, and every row of every table. Neither may hold a
 * client secret, sign-secret, ingest key, service key, access token, signature or confirmation
 * code, whether it was right or wrong when sent.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalCommandBody } from '../../src/domain/command-signature.js';
import { systemClock } from '../../src/domain/clock.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { openStore } from '../../src/store/open-store.js';
import { DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { prepareProcessFleet, PROCESS_APP, processVins } from '../support/process-fleet.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { scaled } from '../support/timeouts.js';

const VINS = processVins('9BWSECRT', 2);
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/;
const WRONG_SECRET = 'wrong-but-long-client-secret-do-not-log-me-0123';

describe.each(DATABASE_KINDS)('secrets in logs and at rest on %s', (kind) => {
  let database: TestDatabase;
  let cloud: SimulatedOemCloud;
  let env: NodeJS.ProcessEnv;
  let served: ServiceProcess | undefined;

  beforeAll(async () => {
    const vehicles = new Map(VINS.map((vin) => [vin, new SimulatedVehicle({ vin, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1)]));
    // Reached as an `http` OEM, which has no stored key to send: keyless, on loopback.
    cloud = new SimulatedOemCloud((vin) => vehicles.get(vin), systemClock, { latencyMs: [50, 100], seed: 1, apiKey: null });
    await cloud.listen();
    ({ database, env } = await prepareProcessFleet(kind, cloud.url, VINS));
    env = { ...env, LOG_LEVEL: 'trace' };
    served = await startServiceProcess(['--no-sim', '--database', database.url], env);
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    await cloud?.close();
    await database?.drop();
  });

  it('when every route is used rightly and wrongly, then neither the logs nor the tables hold a secret', async () => {
    const url = served!.url;
    const post = (path: string, headers: Record<string, string>, body: string) => fetch(`${url}${path}`, { method: 'POST', headers, body }).then(async (r) => ({ status: r.status, text: await r.text() }));
    const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };

    const good = await post('/token', form, new URLSearchParams({ client_id: PROCESS_APP.clientId, client_secret: PROCESS_APP.secret }).toString());
    const token = (JSON.parse(good.text) as { token: string }).token;
    await post('/token', form, new URLSearchParams({ username: PROCESS_APP.clientId, password: WRONG_SECRET }).toString());
    await post('/token', form, new URLSearchParams({ client_id: 'no-such-client', client_secret: PROCESS_APP.secret }).toString());
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const tampered = `${token.slice(0, -4)}AAAA`;
    await fetch(`${url}/vehicle`, { headers: { authorization: `Bearer ${tampered}` } });
    await fetch(`${url}/vehicle`, { headers: auth });
    await post('/vehicle-data', auth, JSON.stringify({ vins: VINS, datapoints: ['speed'] }));
    await post('/vehicle-trips', auth, JSON.stringify({ vins: VINS, datapoints: ['distance'] }));

    const signature = (command: string) => createHmac('sha256', PROCESS_APP.sign).update(canonicalCommandBody(VINS[0]!, command)).digest('hex');
    const wrongSignature = createHmac('sha256', WRONG_SECRET).update(canonicalCommandBody(VINS[0]!, 'diagnostics')).digest('hex');
    const diagnostics = JSON.stringify({ vin: VINS[0], command: 'diagnostics' });
    await post('/vehicle-command', { ...auth, 'x-signature': wrongSignature }, diagnostics);
    const created = await post('/vehicle-command', { ...auth, 'x-signature': signature('diagnostics'), 'idempotency-key': 'secret-test-1' }, diagnostics);
    await post('/vehicle-command', { ...auth, 'x-signature': signature('diagnostics'), 'idempotency-key': 'secret-test-1' }, diagnostics);
    const step1 = await post('/vehicle-command', { ...auth, 'x-signature': signature('disable_ignition') }, JSON.stringify({ vin: VINS[0], command: 'disable_ignition' }));
    const code = (JSON.parse(step1.text) as { code: string }).code;
    const wrongCode = code === '000000' ? '111111' : '000000';
    await post('/vehicle-command', { ...auth, 'x-signature': signature('disable_ignition') }, JSON.stringify({ vin: VINS[0], command: 'disable_ignition', code: wrongCode }));
    const step2 = await post('/vehicle-command', { ...auth, 'x-signature': signature('disable_ignition') }, JSON.stringify({ vin: VINS[0], command: 'disable_ignition', code }));
    expect(step2.status).toBe(200);
    await fetch(`${url}/vehicle-command/${(JSON.parse(created.text) as { id: string }).id}`, { headers: auth });
    await post(`/ingest/cloudmotors`, { authorization: `Bearer ${PROCESS_APP.ingestKey}`, 'content-type': 'application/json' },
      JSON.stringify({ records: [{ vin: VINS[0], date_time: new Date(Date.now() - 60_000).toISOString(), speed: 3 }] }));
    await post(`/ingest/cloudmotors`, { authorization: `Bearer ${WRONG_SECRET}`, 'content-type': 'application/json' }, JSON.stringify({ records: [] }));
    await fetch(`${url}/metrics`);
    await fetch(`${url}/readyz`);
    const finished = served!;
    await finished.stop('SIGTERM');
    served = undefined;
    const logs = finished.output();

    const secrets: Record<string, string> = {
      'client secret': PROCESS_APP.secret, 'sign-secret': PROCESS_APP.sign, 'ingest key': PROCESS_APP.ingestKey, 'a wrong secret sent': WRONG_SECRET,
      'JWT signing key': env.TELEMATICS_JWT_KEYS!, 'master key': env.TELEMATICS_MASTER_KEYS!, 'access token': token, 'tampered token': tampered,
      'signature': signature('diagnostics'), 'wrong signature': wrongSignature,
    };
    const codes = [code, wrongCode].map((c) => new RegExp(`["':= ]${c}(?![0-9])`));

    expect(logs.length).toBeGreaterThan(1000);
    for (const [name, value] of Object.entries(secrets)) expect(logs.includes(value), `${name} in the logs`).toBe(false);
    expect(JWT.test(logs), 'a JWT in the logs').toBe(false);
    for (const pattern of codes) expect(pattern.test(logs), `confirmation code in the logs (${pattern})`).toBe(false);

    const store = openStore(database.url, { poolSize: 1 });
    try {
      const tables = ['plans', 'oems', 'companies', 'applications', 'vehicles', 'telemetry', 'trips', 'trip_cursors', 'commands', 'idempotency_keys', 'events', 'event_positions', 'vehicle_presence'];
      let dump = '';
      for (const table of tables) dump += JSON.stringify((await sql`select * from ${sql.table(table)}`.execute(store.db)).rows);
      expect(dump).toContain(VINS[0]);
      for (const [name, value] of Object.entries(secrets)) expect(dump.includes(value), `${name} in the tables`).toBe(false);
      expect(JWT.test(dump), 'a JWT in the tables').toBe(false);
      for (const pattern of codes) expect(pattern.test(dump), `confirmation code in the tables (${pattern})`).toBe(false);
    } finally {
      await store.close();
    }
  }, scaled(60_000));
});
