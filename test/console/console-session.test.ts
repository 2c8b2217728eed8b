/**
 * The console's server side over real HTTP on both databases: a person's sign-in, the cookie's
 * attributes, CSRF refusals, idle and absolute expiry, the console application disabled or
 * rotated mid-session, commands signed by the service for roles that may send them, security
 * headers, that applications cannot sign in here (they have POST /token), and that the public
 * document does not list the console's routes.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateApplicationSecrets, setApplicationEnabled } from '../../src/registry/manage-applications.js';
import { consoleClientId } from '../../src/users/console-application.js';
import { addPerson, CONSOLE_HEADER as CONSOLE, consoleSignIn, TEST_CONSOLE_USERS, withSession, type TestPerson } from '../support/console-people.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService, type TestServiceOptions } from '../support/test-service.js';

const MIN = 60_000;
const SESSIONS = { idleMs: 30 * MIN, maxMs: 12 * 60 * MIN };
const CONSOLE_APP = consoleClientId('alpha');

describe.each(DATABASE_KINDS)('console sessions on %s', (kind) => {
  let svc: TestService;
  let dispatcher: TestPerson;
  let admin: TestPerson;
  let viewer: TestPerson;

  async function start(options: TestServiceOptions['http'] = {}): Promise<void> {
    svc = await startTestService(kind, undefined, {
      rateLimits: { tokenPerAddress: { limit: 30, windowMs: MIN } },
      http: { console: { sessions: SESSIONS, basemap: null, users: TEST_CONSOLE_USERS }, ...options },
    });
    await svc.useSimulatedCloud();
    [dispatcher, admin, viewer] = await Promise.all([addPerson(svc, 'alpha', 'dispatcher'), addPerson(svc, 'alpha', 'admin'), addPerson(svc, 'alpha', 'viewer')]);
  }
  beforeAll(() => start());
  afterAll(async () => { await svc?.close(); });

  const signIn = (person: TestPerson = dispatcher) => consoleSignIn(svc, person);

  it('when a person\'s e-mail and password are right, then an HttpOnly SameSite=Strict cookie holds an opaque id and the answer says who is signed in, never a secret', async () => {
    const res = await svc.request('POST', '/console/session', { json: { email: dispatcher.email, password: dispatcher.password }, headers: CONSOLE });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^telematics_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(res.body).toEqual({
      company: 'Alpha Logistics', user: { email: 'dispatcher@alpha.example', role: 'dispatcher' },
      scopes: expect.arrayContaining(['vehicles:read', 'commands:write', 'shares:manage']), expires: expect.any(String), commands: true, basemap: null, offline_after_seconds: 900,
    });
    expect(res.body.scopes).not.toContain('users:manage');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).not.toContain(dispatcher.password);
    // Only the id's hash is stored.
    const id = /telematics_console=([^;]+)/.exec(cookie)![1]!;
    const rows = await svc.store.db.selectFrom('console_sessions').selectAll().execute();
    expect(rows.some((r) => r.id_hash === id)).toBe(false);
    expect(svc.logs.join('\n')).not.toContain(id);
  });

  it('when behind a proxy that says HTTPS, then the cookie is __Host- prefixed and Secure', async () => {
    await svc.close();
    await start({ trustProxy: 1 });
    const res = await svc.request('POST', '/console/session', { json: { email: dispatcher.email, password: dispatcher.password }, headers: { ...CONSOLE, 'x-forwarded-proto': 'https' } });
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-telematics_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    // Over HTTPS the plain cookie is not read: only the prefixed one can have been set by this origin.
    const id = /telematics_console=([^;]+)/.exec(res.headers.get('set-cookie')!)![1]!;
    const https = { 'x-forwarded-proto': 'https' };
    expect((await svc.request('GET', '/console/session', { headers: { ...https, cookie: `telematics_console=${id}` } })).status).toBe(204);
    expect((await svc.request('GET', '/console/session', { headers: { ...https, cookie: `__Host-telematics_console=${id}` } })).status).toBe(200);
    await svc.close();
    await start();
  });

  const FIELDS = 'email and password are required; code, when given, must be a string.';
  it.each([
    ['a wrong password', () => ({ email: dispatcher.email, password: 'not the password at all' }), 401, 'Invalid e-mail or password.'],
    ['an unknown e-mail', () => ({ email: 'nobody@alpha.example', password: dispatcher.password }), 401, 'Invalid e-mail or password.'],
    ['an application\'s credentials (applications have POST /token)', () => ({ client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client, sign_secret: SECRETS.alphaDispatch.sign }), 400, FIELDS],
    ['no password', () => ({ email: dispatcher.email }), 400, FIELDS],
    ['a number for a password', () => ({ email: dispatcher.email, password: 7 }), 400, FIELDS],
    ['a list for a code', () => ({ email: dispatcher.email, password: dispatcher.password, code: ['x'] }), 400, FIELDS],
    ['a list for a body', () => [dispatcher.email], 400, FIELDS],
  ] as const)('when signing in with %s, then the status and no cookie', async (_label, json, status, detail) => {
    const res = await svc.request('POST', '/console/session', { json: json(), headers: CONSOLE });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ detail });
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('when a state change comes without the console header or from another site, then 403 before anything happens', async () => {
    const id = await signIn();
    const body = { email: dispatcher.email, password: dispatcher.password };
    const refused = { detail: 'Cross-site request refused: send it from the console.' };
    expect((await svc.request('POST', '/console/session', { json: body })).body).toEqual(refused);
    expect((await svc.request('POST', '/console/session', { json: body, headers: { ...CONSOLE, 'sec-fetch-site': 'cross-site' } })).body).toEqual(refused);
    const command = { vin: ALPHA_VINS[0], command: 'diagnostics' };
    const res = await svc.request('POST', '/console/api/vehicle-command', { json: command, headers: withSession(id) });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(refused);
    expect((await svc.request('DELETE', '/console/session', { headers: withSession(id, { 'sec-fetch-site': 'same-site', ...CONSOLE }) })).status).toBe(403);
    // A form post cannot carry JSON: 415 even with the header.
    const form = await svc.request('POST', '/console/api/vehicle-command', { form: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: withSession(id, CONSOLE) });
    expect(form.status).toBe(415);
    expect(await svc.store.db.selectFrom('commands').select('id').execute()).toEqual([]);
  });

  it('when a dispatcher is signed in, then the interface\'s routes answer under /console/api exactly as for a token, and commands are signed by the service', async () => {
    const id = await signIn();
    expect((await svc.request('GET', '/console/session', { headers: withSession(id) })).body.commands).toBe(true);
    const vehicles = await svc.request('GET', '/console/api/vehicle', { headers: withSession(id) });
    expect(vehicles.status).toBe(200);
    expect(vehicles.body.map((v: { vin: string }) => v.vin)).toEqual([...ALPHA_VINS].sort());
    expect(vehicles.headers.get('cache-control')).toBe('no-store');
    expect((await svc.request('GET', '/console/api/vehicle-data/latest', { headers: withSession(id) })).status).toBe(200);
    const created = await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics', code: undefined }, headers: withSession(id, CONSOLE) });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ vin: ALPHA_VINS[0], command: 'diagnostics', status: 'Pending' });
    const history = await svc.request('GET', '/console/api/vehicle-commands', { headers: withSession(id) });
    expect(history.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
    // A signature the page sends is ignored: the service signs.
    const forged = await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'enable_ignition' }, headers: withSession(id, { ...CONSOLE, 'x-signature': '0'.repeat(64) }) });
    expect(forged.body).toMatchObject({ status: 'Confirmation', code: expect.stringMatching(/^\d{6}$/) });
    expect((await svc.request('GET', '/console/api/nothing-here', { headers: withSession(id) })).body).toEqual({ detail: 'Not found.' });
  });

  it('when an admin is signed in, then the company\'s alert rules are created, replaced, listed and deleted under /console/api; a change without the console header is refused', async () => {
    const id = await signIn(admin);
    const body = { name: 'Console speeding', kind: 'overspeed', threshold: 100 };
    expect((await svc.request('POST', '/console/api/alert-rules', { json: body, headers: withSession(id) })).status).toBe(403);
    const created = await svc.request('POST', '/console/api/alert-rules', { json: body, headers: withSession(id, CONSOLE) });
    expect(created.status, created.text).toBe(201);
    const replaced = await svc.request('PUT', `/console/api/alert-rules/${created.body.id}`, { json: { ...body, threshold: 110 }, headers: withSession(id, CONSOLE) });
    expect(replaced.body).toMatchObject({ id: created.body.id, threshold: 110 });
    const token = await svc.token('alpha-reports', SECRETS.alphaReports.client);
    expect((await svc.request('GET', '/alert-rules', { headers: { authorization: `Bearer ${token}` } })).body).toEqual([replaced.body]);
    expect((await svc.request('DELETE', `/console/api/alert-rules/${created.body.id}`, { headers: withSession(id) })).status).toBe(403);
    expect((await svc.request('DELETE', `/console/api/alert-rules/${created.body.id}`, { headers: withSession(id, CONSOLE) })).status).toBe(204);
    expect((await svc.request('GET', '/console/api/alert-rules', { headers: withSession(id) })).body).toEqual([]);
  });

  it('when a viewer is signed in, then the session reads but may not command: no signing, and the scope check refuses it', async () => {
    const id = await signIn(viewer);
    expect((await svc.request('GET', '/console/session', { headers: withSession(id) })).body).toMatchObject({ commands: false, user: { role: 'viewer' } });
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(id) })).status).toBe(200);
    const before = (await svc.store.db.selectFrom('commands').select('id').execute()).length;
    const refused = await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: withSession(id, CONSOLE) });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: { detail: 'Insufficient scope: commands:write is required.' } });
    expect((await svc.store.db.selectFrom('commands').select('id').execute()).length).toBe(before);
  });

  it('when the console application\'s sign-secret is rotated, then a dispatcher\'s session ends, as an application\'s tokens do', async () => {
    const id = await signIn();
    const send = () => svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: withSession(id, CONSOLE) });
    expect((await send()).status).toBe(200);
    await rotateApplicationSecrets(svc.store.db, svc.keyring, CONSOLE_APP, 'sign', svc.clock.now());
    const after = await send();
    expect({ status: after.status, body: after.body }).toEqual({ status: 401, body: { detail: 'Not authenticated.' } });
    expect((await svc.request('GET', '/console/session', { headers: withSession(id) })).status).toBe(204);
    // Signing in again is signed with the new sign-secret.
    const again = await signIn();
    expect((await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: withSession(again, CONSOLE) })).status).toBe(200);
  });

  it('when a browser signs in again, then the session it held ends', async () => {
    const first = await signIn();
    const again = await svc.request('POST', '/console/session', { json: { email: viewer.email, password: viewer.password }, headers: withSession(first, CONSOLE) });
    expect(again.status).toBe(200);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(first) })).status).toBe(401);
  });

  it('when there is no session, or the session is an application\'s from before applications left the console, then 401 on the API and 204 on GET /console/session', async () => {
    expect((await svc.request('GET', '/console/api/vehicle')).body).toEqual({ detail: 'Not authenticated.' });
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession('x'.repeat(43)) })).status).toBe(401);
    expect((await svc.request('GET', '/console/session')).status).toBe(204);
    // An application's session as an earlier version stored it: no person.
    const id = await signIn();
    const idHash = createHash('sha256').update(id).digest('hex');
    const changed = await svc.store.db.updateTable('console_sessions').set({ user_id: null, user_version: null }).where('id_hash', '=', idHash).executeTakeFirst();
    expect(Number(changed.numUpdatedRows)).toBe(1);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(id) })).status).toBe(401);
    expect(await svc.store.db.selectFrom('console_sessions').select('id_hash').where('id_hash', '=', idHash).execute()).toEqual([]);
  });

  it('when idle past the idle limit, or past the absolute limit while active, then the session is over and its row gone', async () => {
    const idle = await signIn();
    svc.clock.advance(29 * MIN);
    expect((await svc.request('GET', '/console/session', { headers: withSession(idle) })).status).toBe(200);
    svc.clock.advance(29 * MIN);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(idle) })).status).toBe(200);
    svc.clock.advance(30 * MIN + 1);
    const expired = await svc.request('GET', '/console/api/vehicle', { headers: withSession(idle) });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('set-cookie')).toMatch(/^telematics_console=; Max-Age=0/);

    const active = await signIn();
    for (let t = 0; t < 12 * 60; t += 20) {
      svc.clock.advance(20 * MIN);
      if (t + 20 < 12 * 60) expect((await svc.request('GET', '/console/session', { headers: withSession(active) })).status).toBe(200);
    }
    expect((await svc.request('GET', '/console/session', { headers: withSession(active) })).status).toBe(204);
  });

  it('when the company\'s console application is disabled, then its people\'s sessions stop working on the next request, and none starts', async () => {
    const id = await signIn();
    await setApplicationEnabled(svc.store.db, CONSOLE_APP, false, svc.clock.now());
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(id) })).status).toBe(401);
    expect((await svc.request('POST', '/console/session', { json: { email: viewer.email, password: viewer.password }, headers: CONSOLE })).status).toBe(403);
    await setApplicationEnabled(svc.store.db, CONSOLE_APP, true, svc.clock.now());
    // Enabling again does not revive it: the session was ended, not suspended.
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(id) })).status).toBe(401);

  });

  it('when the operator tries to rotate the console application\'s client secret, then it is refused: that secret is never issued', async () => {
    for (const which of ['client', 'both'] as const) {
      await expect(rotateApplicationSecrets(svc.store.db, svc.keyring, CONSOLE_APP, which, svc.clock.now())).rejects.toThrow(/is the company's console application: its client secret is never issued/);
    }
    const reader = await signIn(viewer);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(reader) })).status).toBe(200);
  });

  it('when signing out, then the cookie is cleared and the id no longer works', async () => {
    const id = await signIn();
    const out = await svc.request('DELETE', '/console/session', { headers: withSession(id, CONSOLE) });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^telematics_console=; Max-Age=0/);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(id) })).status).toBe(401);
  });

  it('when the console is served, then / redirects to it, pages carry a strict CSP, and the OpenAPI document lists none of its routes', async () => {
    const root = await svc.request('GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const csp = root.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(root.headers.get('x-content-type-options')).toBe('nosniff');
    const doc = await svc.request('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths).filter((p) => p.startsWith('/console') || p.startsWith('/share/') || p === '/')).toEqual([]);
    expect(Object.keys(doc.body.paths)).toContain('/vehicle-data/latest');
  });

  it('when anything under the console is answered, then framing is refused by CSP frame-ancestors alone, with no X-Frame-Options beside it', async () => {
    const answers = [
      await svc.request('GET', '/'),
      await svc.request('GET', '/console/'),
      await svc.request('GET', '/console/api/vehicle'),
      await svc.request('POST', '/console/session', { json: { email: dispatcher.email, password: 'wrong, very wrong' }, headers: CONSOLE }),
    ];
    expect(answers.map((a) => a.status)).toEqual([302, 200, 401, 401]);
    for (const answer of answers) {
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-frame-options')).toBeNull();
    }
  });

  it('when sign-ins from one address exceed the limit, then 429 before the password is checked', async () => {
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i += 1) {
      status = (await svc.request('POST', '/console/session', { json: { email: dispatcher.email, password: `guess number ${i}` }, headers: CONSOLE })).status;
    }
    expect(status).toBe(429);
  });
});
