/**
 * Finding 11: the simulated automaker cloud is a real HTTP server on loopback, so any local process
 * could command any simulated vehicle through it. It now requires a bearer secret; the service
 * makes a random one for its in-process cloud and only its connector holds it.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { canonicalCommandBody } from '../../src/domain/command-signature.js';
import { createLogger } from '../../src/logger.js';
import { generateKeyringDocument } from '../../src/security/keyring.js';
import { startService, type RunningService } from '../../src/service.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { printedDemoCredentials } from '../support/demo-process.js';
import { T0 } from '../support/test-service.js';
import { scaled } from '../support/timeouts.js';

const KEY = 'sim-cloud-test-key-0123456789abcdefghijklmnopq';
const VIN = '9BWZZZ377VT004251';

/** A request to the cloud as any local process could send it. */
async function call(url: string, method: 'GET' | 'POST', authorization: string | undefined, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.text() };
}

const WRONG_KEYS: [string, string | undefined][] = [
  ['no Authorization header', undefined],
  ['an empty bearer', 'Bearer '],
  ['a wrong key of the same length', `Bearer ${KEY.replace(/.$/, 'X')}`],
  ['a wrong key of another length', 'Bearer short'],
  ['the key with a prefix', `Bearer x${KEY}`],
  ['the key under another scheme', `Basic ${KEY}`],
  ['the key without a scheme', KEY],
];

describe('the simulated automaker cloud\'s key', () => {
  let cloud: SimulatedOemCloud;
  const vehicle = new SimulatedVehicle({ vin: VIN, powertrain: 'combustion', profile: 'normal', tankLiters: 55 }, 1);

  beforeAll(async () => {
    cloud = new SimulatedOemCloud((vin) => (vin === VIN ? vehicle : undefined), { now: () => T0 }, { latencyMs: [100, 200], seed: 1, apiKey: KEY });
    await cloud.listen();
  });
  afterAll(async () => { await cloud?.close(); });

  it.each(WRONG_KEYS)('when a command comes with %s, then 401 and nothing is started', async (_name, authorization) => {
    const res = await call(`${cloud.url}/commands`, 'POST', authorization, { id: randomUUID(), vin: VIN, command: 'disable_ignition' });
    expect(res.status).toBe(401);
    expect(cloud.received).toEqual([]);
  });

  it('when a status is read without the key, then 401', async () => {
    expect((await call(`${cloud.url}/commands/${randomUUID()}`, 'GET', undefined)).status).toBe(401);
  });

  it('when the key is sent, then the command is started', async () => {
    const id = randomUUID();
    const res = await call(`${cloud.url}/commands`, 'POST', `Bearer ${KEY}`, { id, vin: VIN, command: 'diagnostics' });
    expect(res.status).toBe(202);
    expect(cloud.received).toEqual([{ id, vin: VIN, command: 'diagnostics' }]);
  });
});

describe.each(DATABASE_KINDS)('the service\'s in-process simulated cloud on %s', (kind) => {
  let database: TestDatabase;
  let service: RunningService;
  const logs: string[] = [];
  let printed = '';
  let skew = 0;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const keys = generateKeyringDocument();
    const env = kind === 'postgres' ? { TELEMATICS_JWT_KEYS: keys.jwt[0]!.secret, TELEMATICS_MASTER_KEYS: keys.master[0]!.key } : {};
    const config = loadConfig({ database: database.url, port: 0, demo: true, sim: true, simBackfill: '0', tokenRateAddress: '0', tokenRateClient: '0', commandRateApp: '0' }, env);
    const sink = new Writable({ write(chunk, _encoding, done) { logs.push(String(chunk)); done(); } });
    service = await startService(config, {
      clock: { now: () => Date.now() + skew },
      logger: createLogger('info', sink),
      print: (text) => { printed += text; },
      progress: { update: () => {}, finish: () => {} },
    });
  });
  afterAll(async () => {
    await service?.close();
    await database?.drop();
  });

  const cloudUrl = () => {
    const line = logs.find((l) => l.includes('simulated automaker cloud listening'));
    return (JSON.parse(line!) as { url: string }).url;
  };

  it('when another local process sends a command to the in-process cloud without its key, then it is refused with 401', async () => {
    for (const [, authorization] of WRONG_KEYS) {
      const res = await call(`${cloudUrl()}/commands`, 'POST', authorization, { id: randomUUID(), vin: VIN, command: 'disable_ignition' });
      expect(res.status).toBe(401);
    }
    expect((await call(`${cloudUrl()}/commands/${randomUUID()}`, 'GET', undefined)).status).toBe(401);
  });

  it('when an application sends a command through the service, then it still reaches the in-process cloud and succeeds', async () => {
    const { clientId, clientSecret, signSecret } = printedDemoCredentials(printed);
    const tokenRes = await fetch(`${service.url}/token`, {
      method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret }),
    });
    const auth = { authorization: `Bearer ${((await tokenRes.json()) as { token: string }).token}` };
    const created = await fetch(`${service.url}/vehicle-command`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'x-signature': createHmac('sha256', signSecret).update(canonicalCommandBody(VIN, 'diagnostics')).digest('hex') },
      body: JSON.stringify({ vin: VIN, command: 'diagnostics' }),
    });
    const { id, status } = (await created.json()) as { id: string; status: string };
    expect(status).toBe('Pending');
    // Past the vehicle's latency and the first polls, without waiting for them.
    skew += 20_000;
    let outcome: { status: string; detail: Record<string, unknown> } = { status: 'Pending', detail: {} };
    for (const deadline = Date.now() + scaled(10_000); outcome.status === 'Pending' && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      outcome = (await (await fetch(`${service.url}/vehicle-command/${id}`, { headers: auth })).json()) as typeof outcome;
    }
    expect(outcome.status).toBe('Success');
    expect(outcome.detail.fuel_capacity).toBe(55);
  });
});
