import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { commandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';

const MINUTE = 60_000;
const tokenRequest = (svc: TestService, clientId: string, secret: string, headers: Record<string, string> = {}) =>
  svc.request('POST', '/token', { form: { client_id: clientId, client_secret: secret }, headers: { accept: 'application/json', ...headers } });

describe.each(DATABASE_KINDS)('request limits on %s', (kind) => {
  describe('POST /token per client id', () => {
    let svc: TestService;
    beforeAll(async () => { svc = await startTestService(kind, undefined, { rateLimits: { tokenPerClient: { limit: 3, windowMs: MINUTE } } }); });
    afterAll(async () => { await svc?.close(); });

    it('when a client id goes over its failure limit, then wrong secrets get 429 with Retry-After, and other clients are not touched', async () => {
      // Successes do not count: a client may take tokens as it needs them.
      for (let i = 0; i < 5; i += 1) expect((await tokenRequest(svc, 'alpha-dispatch', SECRETS.alphaDispatch.client)).status).toBe(200);
      for (let i = 0; i < 3; i += 1) expect((await tokenRequest(svc, 'alpha-dispatch', `wrong-secret-${i}`)).status).toBe(401);
      const limited = await tokenRequest(svc, 'alpha-dispatch', 'wrong-secret');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('20');
      expect(limited.body).toEqual({ detail: 'Too many requests. Retry after 20 s.' });
      // The same client id sent as `username` is the same client.
      const asUsername = await svc.request('POST', '/token', { form: { username: 'alpha-dispatch', password: 'wrong' }, headers: { accept: 'application/json' } });
      expect(asUsername.status).toBe(429);
      expect((await tokenRequest(svc, 'alpha-reports', 'wrong-secret')).status).toBe(401);
      expect((await tokenRequest(svc, 'alpha-reports', SECRETS.alphaReports.client)).status).toBe(200);
    });

    it('when someone keeps failing for a client id, then the correct secret still gets its token (no lock-out)', async () => {
      // The probe: 20 wrong secrets, then one every 3 s, from anywhere.
      for (let i = 0; i < 20; i += 1) await tokenRequest(svc, 'alpha-dispatch', `guess-${i}`);
      const guesses: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        svc.clock.advance(3000);
        guesses.push((await tokenRequest(svc, 'alpha-dispatch', `guess-late-${i}`)).status);
        const rightful = await tokenRequest(svc, 'alpha-dispatch', SECRETS.alphaDispatch.client);
        expect(rightful.status).toBe(200);
        expect(typeof rightful.body.token).toBe('string');
      }
      expect(guesses).toContain(429);
      expect(guesses.every((status) => status === 401 || status === 429)).toBe(true);
    });

    it('when the client waits as told, then a wrong secret is a plain 401 again', async () => {
      svc.clock.advance(MINUTE);
      expect((await tokenRequest(svc, 'alpha-dispatch', 'wrong-secret')).status).toBe(401);
    });
  });

  describe('POST /token per address', () => {
    let svc: TestService;
    beforeAll(async () => { svc = await startTestService(kind, undefined, { rateLimits: { tokenPerAddress: { limit: 4, windowMs: MINUTE } } }); });
    afterAll(async () => { await svc?.close(); });

    it('when one address tries many client ids, then it is stopped before any body is read', async () => {
      for (let i = 0; i < 4; i += 1) expect((await tokenRequest(svc, `guess-${i}`, 'nope')).status).toBe(401);
      const limited = await tokenRequest(svc, 'alpha-dispatch', SECRETS.alphaDispatch.client);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBe(15);
      // Even a request that is not a token request at all counts and is refused.
      expect((await svc.request('POST', '/token', { raw: 'x'.repeat(100), headers: { 'content-type': 'text/plain', accept: 'application/json' } })).status).toBe(429);
      // Without --trust-proxy, X-Forwarded-For is not believed.
      expect((await tokenRequest(svc, 'alpha-dispatch', SECRETS.alphaDispatch.client, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(429);
    });
  });

  describe.each([
    ['one proxy hop', 1 as const],
    ['the proxy\'s range', ['127.0.0.0/8'] as const],
  ])('POST /token per address behind a proxy trusted by %s', (_how, trustProxy) => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startTestService(kind, undefined, { rateLimits: { tokenPerAddress: { limit: 4, windowMs: MINUTE } }, http: { trustProxy } });
    });
    afterAll(async () => { await svc?.close(); });

    // What an appending proxy (nginx's $proxy_add_x_forwarded_for, a cloud load balancer) sends:
    // whatever the client wrote, then the address the proxy saw.
    const viaProxy = (clientWrote: string, proxySaw: string) => tokenRequest(svc, 'alpha-dispatch', 'wrong', { 'x-forwarded-for': `${clientWrote}, ${proxySaw}` });

    it('when a client writes a new X-Forwarded-For on every request, then it is still limited by the address the proxy saw', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 150; i += 1) statuses.push((await viaProxy(`10.0.${i >> 8}.${i & 255}`, '203.0.113.7')).status);
      expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
      expect(statuses.slice(4).every((status) => status === 429)).toBe(true);
      // Another client behind the same proxy is another address.
      expect((await viaProxy('10.0.0.1', '203.0.113.8')).status).toBe(401);
    });

    it('when the proxy writes the client as ip:port (Azure Application Gateway), then a new port is not a new client', async () => {
      const statuses: number[] = [];
      for (let port = 40_000; port < 40_010; port += 1) statuses.push((await viaProxy('10.9.9.9', `198.51.100.20:${port}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429, 429, 429]);
    });

    it('when a client rotates through the IPv6 addresses of its /64, then it is limited as one', async () => {
      const statuses: number[] = [];
      for (let i = 1; i <= 10; i += 1) statuses.push((await viaProxy('10.9.9.9', `2001:db8:aa:bb::${i.toString(16)}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429, 429, 429]);
      expect((await viaProxy('10.9.9.9', '2001:db8:aa:bc::1')).status).toBe(401);
    });
  });

  describe('POST /token per address behind two proxies', () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startTestService(kind, undefined, { rateLimits: { tokenPerAddress: { limit: 2, windowMs: MINUTE } }, http: { trustProxy: 2 } });
    });
    afterAll(async () => { await svc?.close(); });

    it('when the hop count is 2, then the client is the hop before the last proxy, whatever it wrote before that', async () => {
      const send = (spoof: string) => tokenRequest(svc, 'alpha-dispatch', 'wrong', { 'x-forwarded-for': `${spoof}, 198.51.100.4, 10.1.1.1` });
      expect((await send('1.1.1.1')).status).toBe(401);
      expect((await send('2.2.2.2')).status).toBe(401);
      expect((await send('3.3.3.3')).status).toBe(429);
    });
  });

  describe('POST /vehicle-command per application', () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startTestService(kind, undefined, { rateLimits: { commandPerApplication: { limit: 2, windowMs: MINUTE } } });
      await svc.useSimulatedCloud();
    });
    afterAll(async () => { await svc?.close(); });

    it('when an application goes over its limit, then 429 and no command, while another application goes on', async () => {
      const dispatch = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
      const reports = commandClient(svc, await svc.token('alpha-reports', SECRETS.alphaReports.client), SECRETS.alphaReports.sign);
      expect((await dispatch.send({ vin: ALPHA_VINS[0], command: 'diagnostics' })).status).toBe(200);
      expect((await dispatch.send({ vin: ALPHA_VINS[0], command: 'diagnostics' }, 'bad')).status).toBe(403);
      const count = async () => Number((await svc.store.db.selectFrom('commands').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const before = await count();
      const limited = await dispatch.send({ vin: ALPHA_VINS[0], command: 'diagnostics' });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('30');
      expect(await count()).toBe(before);
      expect((await reports.send({ vin: ALPHA_VINS[0], command: 'diagnostics' })).status).toBe(200);
      // Reading a command is not limited.
      expect((await dispatch.status('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });
  });
});
