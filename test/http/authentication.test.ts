import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import { setApplicationEnabled, rotateApplicationSecrets } from '../../src/registry/manage-applications.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(DATABASE_KINDS)('bearer authentication on %s', (kind) => {
  let svc: TestService;
  let token: string;
  beforeAll(async () => {
    svc = await startTestService(kind);
    token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
  });
  afterAll(async () => { await svc?.close(); });

  const get = (authorization?: string) =>
    svc.request('GET', '/vehicle', authorization === undefined ? {} : { headers: { authorization } });

  /** A token signed with the service's real key but with claims or header chosen by the test. */
  async function forge(overrides: { header?: Record<string, unknown>; claims?: Record<string, unknown>; key?: Uint8Array; alg?: string } = {}) {
    const real = decodeJwt(token);
    const key = svc.keyring.jwt[0]!;
    return new SignJWT({ ...real, ...overrides.claims })
      .setProtectedHeader({ alg: overrides.alg ?? 'HS256', kid: key.id, typ: 'at+jwt', ...overrides.header })
      .sign(overrides.key ?? key.key);
  }

  function expectRefused(res: Awaited<ReturnType<typeof get>>, detail = 'Invalid or expired token.') {
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  }

  it('when the token is valid, then the request is served', async () => {
    expect((await get(`Bearer ${token}`)).status).toBe(200);
    expect((await get(`bearer ${token}`)).status).toBe(200);
  });

  it('when the header is missing, then 401 Not authenticated. with a Bearer challenge', async () => {
    const res = await get();
    expectRefused(res, 'Not authenticated.');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('when the header uses another scheme, then it counts as no bearer token: 401 Not authenticated. with a bare challenge', async () => {
    const res = await get(`Basic ${Buffer.from('alpha-dispatch:secret').toString('base64')}`);
    expectRefused(res, 'Not authenticated.');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.each([
    ['no token after Bearer', () => 'Bearer'],
    ['garbage', () => 'Bearer not-a-jwt'],
    ['two tokens', (t: string) => `Bearer ${t} ${t}`],
    ['a truncated token', (t: string) => `Bearer ${t.slice(0, -10)}`],
    ['a token of random bytes', () => `Bearer ${randomBytes(40).toString('base64url')}.${randomBytes(40).toString('base64url')}.${randomBytes(32).toString('base64url')}`],
  ])('when the header is malformed (%s), then 401', async (_label, make) => {
    expectRefused(await get(make(token)));
  });

  it('when a bearer token is refused, then the challenge says invalid_token', async () => {
    expect((await get('Bearer x.y.z')).headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('when the payload is altered and the signature kept, then 401', async () => {
    const [h, , s] = token.split('.');
    const tampered = `${h}.${b64({ ...decodeJwt(token), cid: 'beta' })}.${s}`;
    expectRefused(await get(`Bearer ${tampered}`));
  });

  it('when alg is none, then 401', async () => {
    const header = b64({ alg: 'none', typ: 'at+jwt', kid: svc.keyring.jwt[0]!.id });
    expectRefused(await get(`Bearer ${header}.${b64(decodeJwt(token))}.`));
  });

  it('when the token uses another HMAC algorithm with the right key, then 401', async () => {
    expectRefused(await get(`Bearer ${await forge({ alg: 'HS512' })}`));
  });

  it('when the kid is unknown, then 401', async () => {
    expectRefused(await get(`Bearer ${await forge({ header: { kid: 'someone-elses-key' } })}`));
  });

  it('when the token is signed with another key under our kid, then 401', async () => {
    expectRefused(await get(`Bearer ${await forge({ key: randomBytes(32) })}`));
  });

  it.each([
    ['audience', { aud: 'another-api' }],
    ['issuer', { iss: 'another-issuer' }],
  ])('when the %s is wrong, then 401', async (_label, claims) => {
    expectRefused(await get(`Bearer ${await forge({ claims })}`));
  });

  it('when the token is not yet valid (nbf ahead of the service clock), then 401; once that time comes, it works', async () => {
    const nbf = Math.floor(svc.clock.now() / 1000) + 600;
    const early = await forge({ claims: { nbf } });
    expectRefused(await get(`Bearer ${early}`));
    svc.clock.advance(601_000);
    try {
      expect((await get(`Bearer ${early}`)).status).toBe(200);
    } finally {
      svc.clock.advance(-601_000);
    }
  });

  it('when the signature is stripped or the token is cut, then 401', async () => {
    const [h, p] = token.split('.');
    expectRefused(await get(`Bearer ${h}.${p}.`));
    expectRefused(await get(`Bearer ${h}.${p}`));
    expectRefused(await get(`Bearer ${token}.${token}`));
  });

  it('when the token type is not an access token, then 401', async () => {
    expectRefused(await get(`Bearer ${await forge({ header: { typ: 'JWT' } })}`));
  });

  it('when a short-lived token reaches its expiry on the service clock, then 401 from that second', async () => {
    const short = await svc.token('alpha-short', SECRETS.alphaShort.client);
    const issuedAt = svc.clock.t;
    try {
      svc.clock.advance(59_000);
      expect((await get(`Bearer ${short}`)).status).toBe(200);
      svc.clock.advance(1_000);
      expectRefused(await get(`Bearer ${short}`));
    } finally {
      svc.clock.t = issuedAt;
    }
  });

  it('when callers take turns on one keep-alive connection, then each is served as itself, and one disabled is refused there at once', async () => {
    // Each connection remembers its last caller (authenticated-callers.ts): a different header on
    // it must not be taken for that caller, nor a registry change be missed through it. Before
    // the tests below, which disable alpha-reports and rotate beta-ops's secret.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    const as = (authorization: string) => new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      http.get(`${svc.url}/vehicle`, { agent, headers: { authorization } }, (res) => {
        ports.add(res.socket.localPort!);
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      }).on('error', reject);
    });
    const companies = (body: unknown) => new Set((body as Array<{ company: string }>).map((v) => v.company));
    // Callers are remembered only while registry changes can be seen.
    expect(svc.store.registryChanges?.live).toBe(true);
    try {
      const reports = `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}`;
      const beta = `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}`;
      // Twice each: the first request of a caller is checked in full, the second found remembered.
      const alphaSeen = await as(reports);
      expect(await as(reports)).toEqual(alphaSeen);
      const betaSeen = await as(beta);
      expect(await as(beta)).toEqual(betaSeen);
      expect(alphaSeen.status).toBe(200);
      expect(betaSeen.status).toBe(200);
      expect([...companies(alphaSeen.body)]).toHaveLength(1);
      expect(companies(betaSeen.body)).not.toEqual(companies(alphaSeen.body));
      expect(await as(reports)).toEqual(alphaSeen);
      await setApplicationEnabled(svc.store.db, 'alpha-reports', false, svc.clock.now());
      expect((await as(reports)).status).toBe(401);
      expect(await as(beta)).toEqual(betaSeen);
      expect(ports.size).toBe(1);
    } finally {
      agent.destroy();
      await setApplicationEnabled(svc.store.db, 'alpha-reports', true, svc.clock.now());
    }
  });

  it('when the application is disabled, then its existing tokens fail at once and no new ones are issued', async () => {
    const reportsToken = await svc.token('alpha-reports', SECRETS.alphaReports.client);
    expect((await get(`Bearer ${reportsToken}`)).status).toBe(200);
    await setApplicationEnabled(svc.store.db, 'alpha-reports', false, svc.clock.now());
    expectRefused(await get(`Bearer ${reportsToken}`));
    const res = await svc.request('POST', '/token', { form: { client_id: 'alpha-reports', client_secret: SECRETS.alphaReports.client } });
    expect(res.status).toBe(401);
    await setApplicationEnabled(svc.store.db, 'alpha-reports', true, svc.clock.now());
    expectRefused(await get(`Bearer ${reportsToken}`));
    expect((await get(`Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}`)).status).toBe(200);
  });

  it('when the client secret is rotated, then tokens issued before stop working and the old secret is refused', async () => {
    const before = await svc.token('beta-ops', SECRETS.betaOps.client);
    expect((await get(`Bearer ${before}`)).status).toBe(200); // verified once, so now cached
    const issued = await rotateApplicationSecrets(svc.store.db, svc.keyring, 'beta-ops', 'client', svc.clock.now());
    expectRefused(await get(`Bearer ${before}`));
    const old = await svc.request('POST', '/token', { form: { client_id: 'beta-ops', client_secret: SECRETS.betaOps.client } });
    expect(old.status).toBe(401);
    expect((await get(`Bearer ${await svc.token('beta-ops', issued.client_secret!)}`)).status).toBe(200);
  });

  it('when tokens are refused, then the logs give the reason but never the token', async () => {
    const forged = await forge({ claims: { aud: 'nope' } });
    await get(`Bearer ${forged}`);
    const logs = svc.logs.join('');
    expect(logs).toContain('bearer token refused');
    expect(logs).not.toContain(forged);
    expect(logs).not.toContain(token);
  });
});
