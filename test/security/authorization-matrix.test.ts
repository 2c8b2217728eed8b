/**
 * OWASP API1/API5: every route × every identity that must not cross the line. Alpha's dispatch
 * application owns a command and alpha's vehicles have data; each foreign identity tries every
 * route on them. Nothing may be read or written across the line, and a refusal must look exactly
 * like "does not exist" where the interface says so (VINs), so resources cannot be probed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../src/security/access-tokens.js';
import type { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, type TestResponse, type TestService } from '../support/test-service.js';

const VIN = ALPHA_VINS[0];
const VIN_NOT_FOUND = { detail: 'VIN not found or unauthorized access.' };
const INVALID_TOKEN = { detail: 'Invalid or expired token.' };

interface Identity {
  readonly authorization: string;
  readonly signSecret: string;
}

type Route = (svc: TestService, who: Identity, commandId: string) => Promise<TestResponse>;

const ROUTES: Readonly<Record<string, Route>> = {
  'GET /vehicle': (svc, who) => svc.request('GET', '/vehicle', { headers: { authorization: who.authorization } }),
  'GET /vehicle/{vin}': (svc, who) => svc.request('GET', `/vehicle/${VIN}`, { headers: { authorization: who.authorization } }),
  'POST /vehicle-data': (svc, who) => svc.request('POST', '/vehicle-data', { json: { vins: [VIN], datapoints: ['vin', 'speed'] }, headers: { authorization: who.authorization } }),
  'POST /vehicle-data (own VIN beside a foreign one)': (svc, who) => svc.request('POST', '/vehicle-data', { json: { vins: [BETA_VINS[1], VIN], datapoints: ['vin', 'speed'] }, headers: { authorization: who.authorization } }),
  'POST /vehicle-trips': (svc, who) => svc.request('POST', '/vehicle-trips', { json: { vins: [VIN], datapoints: ['distance'] }, headers: { authorization: who.authorization } }),
  'POST /vehicle-command': (svc, who) => svc.request('POST', '/vehicle-command', {
    json: { vin: VIN, command: 'diagnostics' }, headers: { authorization: who.authorization, 'x-signature': sign(who.signSecret, VIN, 'diagnostics') },
  }),
  'POST /vehicle-command (second step with the owner\'s id as code)': (svc, who, commandId) => svc.request('POST', '/vehicle-command', {
    json: { vin: VIN, command: 'disable_ignition', code: commandId.slice(0, 6) }, headers: { authorization: who.authorization, 'x-signature': sign(who.signSecret, VIN, 'disable_ignition') },
  }),
  'GET /vehicle-command/{id}': (svc, who, commandId) => svc.request('GET', `/vehicle-command/${commandId}`, { headers: { authorization: who.authorization } }),
};

describe.each(DATABASE_KINDS)('authorization matrix on %s', (kind) => {
  let svc: TestService;
  let cloud: SimulatedOemCloud;
  let owner: Identity;
  let commandId: string;
  const identities: Record<string, Identity> = {};

  const commandCount = async () => Number((await svc.store.db.selectFrom('commands').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    svc = await startTestService(kind);
    ({ cloud } = await svc.useSimulatedCloud());
    expect((await svc.ingest([
      { vin: VIN, date_time: iso(svc.clock.now() - 3_600_000), speed: 42 },
      { vin: BETA_VINS[1], date_time: iso(svc.clock.now() - 3_600_000), speed: 7 },
    ])).body.rejected).toEqual([]);
    owner = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}`, signSecret: SECRETS.alphaDispatch.sign };
    const created = await ROUTES['POST /vehicle-command']!(svc, owner, '');
    expect(created.status).toBe(200);
    commandId = created.body.id;

    const appOf = (clientId: string) => svc.store.db.selectFrom('applications').selectAll().where('client_id', '=', clientId).executeTakeFirstOrThrow();
    const mint = async (clientId: string, issuedAt: number) => {
      const app = await appOf(clientId);
      return `Bearer ${await issueAccessToken({
        clientId, applicationId: app.id, companyId: app.company_id, credentialsVersion: app.credentials_version, lifetimeSeconds: 3600, scope: '',
      }, issuedAt, svc.keyring.jwt, svc.tokenSettings)}`;
    };
    identities['another company'] = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}`, signSecret: SECRETS.betaOps.sign };
    identities['another application of the same company'] = { authorization: `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}`, signSecret: SECRETS.alphaReports.sign };
    // Well signed by the service's own key: only the application's state refuses them.
    identities['a disabled application'] = { authorization: await mint('alpha-off', svc.clock.now()), signSecret: SECRETS.alphaOff.sign };
    identities['the owner with an expired token'] = { authorization: await mint('alpha-dispatch', svc.clock.now() - 2 * 3_600_000), signSecret: SECRETS.alphaDispatch.sign };
  });
  afterAll(async () => { await svc?.close(); });

  /** What each foreign identity must get from each route; undefined: allowed (same company). */
  const EXPECTED: Record<string, Record<string, [number, unknown] | 'own-only' | 'allowed'>> = {
    'another company': {
      'GET /vehicle': 'own-only',
      'GET /vehicle/{vin}': [404, VIN_NOT_FOUND],
      'POST /vehicle-data': [404, VIN_NOT_FOUND],
      'POST /vehicle-data (own VIN beside a foreign one)': [404, VIN_NOT_FOUND],
      'POST /vehicle-trips': [404, VIN_NOT_FOUND],
      'POST /vehicle-command': [404, VIN_NOT_FOUND],
      'POST /vehicle-command (second step with the owner\'s id as code)': [404, VIN_NOT_FOUND],
      'GET /vehicle-command/{id}': [403, { detail: 'Access denied.' }],
    },
    'another application of the same company': {
      // Vehicles and their data belong to the company: every application of it may read them.
      'GET /vehicle': 'allowed',
      'GET /vehicle/{vin}': 'allowed',
      'POST /vehicle-data': 'allowed',
      'POST /vehicle-data (own VIN beside a foreign one)': [404, VIN_NOT_FOUND],
      'POST /vehicle-trips': 'allowed',
      'POST /vehicle-command': 'allowed',
      // A code is bound to the application that asked for it.
      'POST /vehicle-command (second step with the owner\'s id as code)': [400, { detail: 'Confirmation invalid' }],
      'GET /vehicle-command/{id}': [403, { detail: 'Access denied.' }],
    },
  };

  for (const who of ['another company', 'another application of the same company', 'a disabled application', 'the owner with an expired token']) {
    for (const route of Object.keys(ROUTES)) {
      it(`${route} as ${who}`, async () => {
        const expectation = EXPECTED[who]?.[route] ?? [401, INVALID_TOKEN];
        const commandsBefore = await commandCount();
        const sentBefore = cloud.received.length;
        const res = await ROUTES[route]!(svc, identities[who]!, commandId);
        if (expectation === 'allowed') {
          expect(res.status).toBe(200);
          return;
        }
        if (expectation === 'own-only') {
          expect(res.status).toBe(200);
          const vins = (res.body as { vin: string }[]).map((v) => v.vin);
          expect(vins.sort()).toEqual([...BETA_VINS].sort());
        } else {
          expect({ status: res.status, body: res.body }).toEqual({ status: expectation[0], body: expectation[1] });
        }
        // Refused: nothing written, nothing sent to the automaker, and the owner's command unchanged.
        expect(await commandCount()).toBe(commandsBefore);
        expect(cloud.received.length).toBe(sentBefore);
        const mine = await ROUTES['GET /vehicle-command/{id}']!(svc, owner, commandId);
        expect(mine.status).toBe(200);
      });
    }
  }

  it('when an automaker\'s ingest key sends records for another automaker\'s vehicle, then they are refused', async () => {
    const res = await svc.ingest([{ vin: ALPHA_VINS[2], date_time: iso(svc.clock.now() - 60_000), speed: 1 }]);
    expect(res.status).toBe(200);
    expect(res.body.rejected).toEqual([{ index: 0, reason: `VIN ${ALPHA_VINS[2]} is not registered to OEM simmotors` }]);
  });
});
