/**
 * The console's server side over real HTTP on both databases: sign-in, the cookie's attributes,
 * CSRF refusals, idle and absolute expiry, an application disabled or rotated mid-session,
 * commands signed by the service, security headers, and that the public document does not list
 * the console's routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateApplicationSecrets, setApplicationEnabled } from '../../src/registry/manage-applications.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const MIN = 60_000;
const CONSOLE = { 'x-telematics-console': '1' };
const SESSIONS = { idleMs: 30 * MIN, maxMs: 12 * 60 * MIN };

describe.each(DATABASE_KINDS)('console sessions on %s', (kind) => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, {
      rateLimits: { tokenPerAddress: { limit: 30, windowMs: MIN } },
      http: { console: { sessions: SESSIONS, basemap: null } },
    });
    await svc.useSimulatedCloud();
  });
  afterAll(async () => { await svc?.close(); });

  async function signIn(clientId = 'alpha-dispatch', secret: string = SECRETS.alphaDispatch.client, signSecret?: string): Promise<string> {
    const res = await svc.request('POST', '/console/session', { json: { client_id: clientId, client_secret: secret, sign_secret: signSecret }, headers: CONSOLE });
    expect(res.status).toBe(200);
    return /telematics_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
  }
  const withCookie = (id: string, extra: Record<string, string> = {}) => ({ cookie: `telematics_console=${id}`, ...extra });

  it('when the credentials are right, then an HttpOnly SameSite=Strict cookie holds an opaque id and the answer says who is signed in, never a secret', async () => {
    const res = await svc.request('POST', '/console/session', { json: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client }, headers: CONSOLE });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^telematics_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(res.body).toEqual({ client_id: 'alpha-dispatch', application: 'dispatch', company: 'Alpha Logistics', user: null, scopes: expect.arrayContaining(['vehicles:read', 'commands:write', 'users:manage']), expires: expect.any(String), commands: false, basemap: null, offline_after_seconds: 900 });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).not.toContain(SECRETS.alphaDispatch.client);
    // Only the id's hash is stored.
    const id = /telematics_console=([^;]+)/.exec(cookie)![1]!;
    const rows = await svc.store.db.selectFrom('console_sessions').selectAll().execute();
    expect(rows.some((r) => r.id_hash === id)).toBe(false);
    expect(svc.logs.join('\n')).not.toContain(id);
  });

  it('when behind a proxy that says HTTPS, then the cookie is __Host- prefixed and Secure', async () => {
    await svc.close();
    svc = await startTestService(kind, undefined, { http: { console: { sessions: SESSIONS, basemap: null }, trustProxy: 1 } });
    await svc.useSimulatedCloud();
    const res = await svc.request('POST', '/console/session', {
      json: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client }, headers: { ...CONSOLE, 'x-forwarded-proto': 'https' },
    });
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-telematics_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    // Over HTTPS the plain cookie is not read: only the prefixed one can have been set by this origin.
    const id = /telematics_console=([^;]+)/.exec(res.headers.get('set-cookie')!)![1]!;
    const https = { 'x-forwarded-proto': 'https' };
    expect((await svc.request('GET', '/console/session', { headers: { ...https, cookie: `telematics_console=${id}` } })).status).toBe(204);
    expect((await svc.request('GET', '/console/session', { headers: { ...https, cookie: `__Host-telematics_console=${id}` } })).status).toBe(200);
    await svc.close();
    svc = await startTestService(kind, undefined, { rateLimits: { tokenPerAddress: { limit: 30, windowMs: MIN } }, http: { console: { sessions: SESSIONS, basemap: null } } });
    await svc.useSimulatedCloud();
  });

  it.each([
    ['a wrong secret', { client_id: 'alpha-dispatch', client_secret: 'nope' }, 401, 'Invalid client credentials.'],
    ['a disabled application', { client_id: 'alpha-off', client_secret: SECRETS.alphaOff.client }, 401, 'Invalid client credentials.'],
    ['a wrong sign-secret beside a right client secret', { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client, sign_secret: SECRETS.alphaReports.sign }, 401, 'Invalid client credentials.'],
    ['no secret', { client_id: 'alpha-dispatch' }, 400, 'client_id and client_secret are required; sign_secret, when given, must be a string.'],
    ['a number for a secret', { client_id: 'alpha-dispatch', client_secret: 7 }, 400, 'client_id and client_secret are required; sign_secret, when given, must be a string.'],
    ['a list for a sign-secret', { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client, sign_secret: ['x'] }, 400, 'client_id and client_secret are required; sign_secret, when given, must be a string.'],
  ])('when signing in with %s, then %i and no cookie', async (_label, json, status, detail) => {
    const res = await svc.request('POST', '/console/session', { json, headers: CONSOLE });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ detail });
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('when a state change comes without the console header or from another site, then 403 before anything happens', async () => {
    const id = await signIn();
    const body = { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client };
    const refused = { detail: 'Cross-site request refused: send it from the console.' };
    expect((await svc.request('POST', '/console/session', { json: body })).body).toEqual(refused);
    expect((await svc.request('POST', '/console/session', { json: body, headers: { ...CONSOLE, 'sec-fetch-site': 'cross-site' } })).body).toEqual(refused);
    const command = { vin: ALPHA_VINS[0], command: 'diagnostics' };
    const res = await svc.request('POST', '/console/api/vehicle-command', { json: command, headers: withCookie(id) });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(refused);
    expect((await svc.request('DELETE', '/console/session', { headers: withCookie(id, { 'sec-fetch-site': 'same-site', ...CONSOLE }) })).status).toBe(403);
    // A form post cannot carry JSON: 415 even with the header.
    const form = await svc.request('POST', '/console/api/vehicle-command', { form: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: withCookie(id, CONSOLE) });
    expect(form.status).toBe(415);
    expect(await svc.store.db.selectFrom('commands').select('id').execute()).toEqual([]);
  });

  it('when signed in with the sign-secret too, then the interface\'s routes answer under /console/api exactly as for a token, and commands are signed by the service', async () => {
    const id = await signIn('alpha-dispatch', SECRETS.alphaDispatch.client, SECRETS.alphaDispatch.sign);
    expect((await svc.request('GET', '/console/session', { headers: withCookie(id) })).body.commands).toBe(true);
    const vehicles = await svc.request('GET', '/console/api/vehicle', { headers: withCookie(id) });
    expect(vehicles.status).toBe(200);
    expect(vehicles.body.map((v: { vin: string }) => v.vin)).toEqual([...ALPHA_VINS].sort());
    expect(vehicles.headers.get('cache-control')).toBe('no-store');
    expect((await svc.request('GET', '/console/api/vehicle-data/latest', { headers: withCookie(id) })).status).toBe(200);
    const created = await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics', code: undefined }, headers: withCookie(id, CONSOLE) });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ vin: ALPHA_VINS[0], command: 'diagnostics', status: 'Pending' });
    const history = await svc.request('GET', '/console/api/vehicle-commands', { headers: withCookie(id) });
    expect(history.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
    // A signature the page sends is ignored: the service signs.
    const forged = await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'enable_ignition' }, headers: withCookie(id, { ...CONSOLE, 'x-signature': '0'.repeat(64) }) });
    expect(forged.body).toMatchObject({ status: 'Confirmation', code: expect.stringMatching(/^\d{6}$/) });
    expect((await svc.request('GET', '/console/api/nothing-here', { headers: withCookie(id) })).body).toEqual({ detail: 'Not found.' });
  });

  it('when signed in, then the company\'s alert rules are created, replaced, listed and deleted under /console/api; a change without the console header is refused', async () => {
    const id = await signIn();
    const body = { name: 'Console speeding', kind: 'overspeed', threshold: 100 };
    expect((await svc.request('POST', '/console/api/alert-rules', { json: body, headers: withCookie(id) })).status).toBe(403);
    const created = await svc.request('POST', '/console/api/alert-rules', { json: body, headers: withCookie(id, CONSOLE) });
    expect(created.status, created.text).toBe(201);
    const replaced = await svc.request('PUT', `/console/api/alert-rules/${created.body.id}`, { json: { ...body, threshold: 110 }, headers: withCookie(id, CONSOLE) });
    expect(replaced.body).toMatchObject({ id: created.body.id, threshold: 110 });
    const token = await svc.token('alpha-reports', SECRETS.alphaReports.client);
    expect((await svc.request('GET', '/alert-rules', { headers: { authorization: `Bearer ${token}` } })).body).toEqual([replaced.body]);
    expect((await svc.request('DELETE', `/console/api/alert-rules/${created.body.id}`, { headers: withCookie(id) })).status).toBe(403);
    expect((await svc.request('DELETE', `/console/api/alert-rules/${created.body.id}`, { headers: withCookie(id, CONSOLE) })).status).toBe(204);
    expect((await svc.request('GET', '/console/api/alert-rules', { headers: withCookie(id) })).body).toEqual([]);
  });

  it('when signed in without the sign-secret, then the session reads but its commands get the interface\'s refusal, as a token without it would', async () => {
    const id = await signIn();
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie(id) })).status).toBe(200);
    const before = (await svc.store.db.selectFrom('commands').select('id').execute()).length;
    const refused = await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: withCookie(id, CONSOLE) });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'X-Signature invalid.' });
    expect((await svc.store.db.selectFrom('commands').select('id').execute()).length).toBe(before);
  });

  it('when the sign-secret is rotated, then a session that proved the old one ends, as the application\'s tokens do', async () => {
    const id = await signIn('alpha-reports', SECRETS.alphaReports.client, SECRETS.alphaReports.sign);
    const send = () => svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: withCookie(id, CONSOLE) });
    expect((await send()).status).toBe(200);
    await rotateApplicationSecrets(svc.store.db, svc.keyring, 'alpha-reports', 'sign', svc.clock.now());
    const after = await send();
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: 'Not authenticated.' });
    expect((await svc.request('GET', '/console/session', { headers: withCookie(id) })).status).toBe(204);
  });

  it('when a browser signs in again, then the session it held ends', async () => {
    const first = await signIn();
    const again = await svc.request('POST', '/console/session', { json: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client }, headers: withCookie(first, CONSOLE) });
    expect(again.status).toBe(200);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie(first) })).status).toBe(401);
  });

  it('when there is no session, then 401 on the API and 204 on GET /console/session', async () => {
    expect((await svc.request('GET', '/console/api/vehicle')).body).toEqual({ detail: 'Not authenticated.' });
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie('x'.repeat(43)) })).status).toBe(401);
    expect((await svc.request('GET', '/console/session')).status).toBe(204);
  });

  it('when idle past the idle limit, or past the absolute limit while active, then the session is over and its row gone', async () => {
    const idle = await signIn();
    svc.clock.advance(29 * MIN);
    expect((await svc.request('GET', '/console/session', { headers: withCookie(idle) })).status).toBe(200);
    svc.clock.advance(29 * MIN);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie(idle) })).status).toBe(200);
    svc.clock.advance(30 * MIN + 1);
    const expired = await svc.request('GET', '/console/api/vehicle', { headers: withCookie(idle) });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('set-cookie')).toMatch(/^telematics_console=; Max-Age=0/);

    const active = await signIn();
    for (let t = 0; t < 12 * 60; t += 20) {
      svc.clock.advance(20 * MIN);
      if (t + 20 < 12 * 60) expect((await svc.request('GET', '/console/session', { headers: withCookie(active) })).status).toBe(200);
    }
    expect((await svc.request('GET', '/console/session', { headers: withCookie(active) })).status).toBe(204);
  });

  it('when the application is disabled or its secrets rotated, then its sessions stop working on the next request', async () => {
    const id = await signIn();
    await setApplicationEnabled(svc.store.db, 'alpha-dispatch', false, svc.clock.now());
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie(id) })).status).toBe(401);
    await setApplicationEnabled(svc.store.db, 'alpha-dispatch', true, svc.clock.now());
    // Enabling again does not revive it: the session was ended, not suspended.
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie(id) })).status).toBe(401);

    const reports = await signIn('alpha-reports', SECRETS.alphaReports.client);
    await rotateApplicationSecrets(svc.store.db, svc.keyring, 'alpha-reports', 'client', svc.clock.now());
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie(reports) })).status).toBe(401);
  });

  it('when signing out, then the cookie is cleared and the id no longer works', async () => {
    const id = await signIn();
    const out = await svc.request('DELETE', '/console/session', { headers: withCookie(id, CONSOLE) });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^telematics_console=; Max-Age=0/);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withCookie(id) })).status).toBe(401);
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
    expect(Object.keys(doc.body.paths).filter((p) => p.startsWith('/console') || p === '/')).toEqual([]);
    expect(Object.keys(doc.body.paths)).toContain('/vehicle-data/latest');
  });

  it('when anything under the console is answered, then framing is refused by CSP frame-ancestors alone, with no X-Frame-Options beside it', async () => {
    const answers = [
      await svc.request('GET', '/'),
      await svc.request('GET', '/console/'),
      await svc.request('GET', '/console/api/vehicle'),
      await svc.request('POST', '/console/session', { json: { client_id: 'alpha-dispatch', client_secret: 'wrong' }, headers: CONSOLE }),
    ];
    expect(answers.map((a) => a.status)).toEqual([302, 200, 401, 401]);
    for (const answer of answers) {
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-frame-options')).toBeNull();
    }
  });

  it('when sign-ins from one address exceed the limit, then 429 before the secret is checked', async () => {
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i += 1) {
      status = (await svc.request('POST', '/console/session', { json: { client_id: 'alpha-dispatch', client_secret: 'guess' }, headers: CONSOLE })).status;
    }
    expect(status).toBe(429);
  });
});
