import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

describe.each(DATABASE_KINDS)('POST /token on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  const json = { accept: 'application/json' };

  it('when client_id and client_secret are valid, then it returns a token and the default expiration', async () => {
    const res = await svc.request('POST', '/token', { form: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client }, headers: json });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expiration', 'token']);
    expect(res.body.expiration).toBe(3600);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const claims = decodeJwt(res.body.token);
    expect(claims).toMatchObject({ sub: 'alpha-dispatch', cid: 'alpha', iss: 'telematics', aud: 'telematics-api', iat: T0 / 1000, exp: T0 / 1000 + 3600 });
    expect(typeof claims.jti).toBe('string');
    expect(decodeProtectedHeader(res.body.token)).toMatchObject({ alg: 'HS256', typ: 'at+jwt', kid: svc.keyring.jwt[0]!.id });
  });

  it('when the guide naming username/password is used, then it returns a token too', async () => {
    const res = await svc.request('POST', '/token', { form: { username: 'beta-ops', password: SECRETS.betaOps.client, grant_type: 'client_credentials' }, headers: json });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.token)).toMatchObject({ sub: 'beta-ops', cid: 'beta' });
  });

  it('when the application has its own lifetime, then expiration and exp follow it', async () => {
    const res = await svc.request('POST', '/token', { form: { client_id: 'alpha-short', client_secret: SECRETS.alphaShort.client } });
    expect(res.status).toBe(200);
    expect(res.body.expiration).toBe(60);
    const claims = decodeJwt(res.body.token);
    expect(claims.exp! - claims.iat!).toBe(60);
  });

  it.each([
    ['absent', undefined],
    ['*/*', '*/*'],
    ['application/*', 'application/*'],
    ['application/json with parameters', 'application/json; charset=utf-8'],
    ['a list including json', 'text/html, application/json;q=0.9'],
  ])('when Accept is %s, then the token is issued', async (_label, accept) => {
    const res = await svc.request('POST', '/token', {
      form: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client },
      headers: accept === undefined ? {} : { accept },
    });
    expect(res.status).toBe(200);
  });

  it.each(['text/html', 'application/xml', 'application/json;q=0', 'application/json;q=0, */*', 'constructor', '__proto__'])('when Accept is %s, then 406', async (accept) => {
    const res = await svc.request('POST', '/token', { form: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client }, headers: { accept } });
    expect(res.status).toBe(406);
    expect(res.body).toEqual({ detail: 'The Accept header must allow application/json.' });
  });

  it.each([
    ['a wrong secret', { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaReports.client }],
    ['an unknown client', { client_id: 'nobody', client_secret: SECRETS.alphaDispatch.client }],
    ['a disabled application', { client_id: 'alpha-off', client_secret: SECRETS.alphaOff.client }],
    ['another application\'s secret', { client_id: 'beta-ops', client_secret: SECRETS.alphaDispatch.client }],
    ['a client id with a NUL byte', { client_id: 'alpha-dispatch\u0000', client_secret: SECRETS.alphaDispatch.client }],
    ['a client id of 10,000 characters', { client_id: 'a'.repeat(7000), client_secret: 'x' }],
    ['a secret with a NUL byte', { client_id: 'alpha-dispatch', client_secret: '\u0000' }],
  ])('when credentials are %s, then 401 Invalid client credentials. and no bearer challenge', async (_label, form) => {
    const res = await svc.request('POST', '/token', { form, headers: json });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid client credentials.' });
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it.each([
    ['nothing', {}],
    ['only client_id', { client_id: 'alpha-dispatch' }],
    ['only password', { password: SECRETS.alphaDispatch.client }],
    ['empty values', { client_id: '', client_secret: '' }],
  ])('when the form holds %s, then 400', async (_label, form) => {
    const res = await svc.request('POST', '/token', { form, headers: json });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'client_id and client_secret (or username and password) are required.' });
  });

  it('when form fields are repeated or oddly encoded, then the answer is still a 4xx or a token, never a 5xx', async () => {
    for (const raw of ['client_id=a&client_id=b&client_secret=c', '%%%', 'client_id=%ZZ&client_secret=%00', '&&&=&=', 'client_id[]=x&client_secret[]=y']) {
      const res = await svc.request('POST', '/token', { raw, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status, raw).toBeGreaterThanOrEqual(400);
      expect(res.status, raw).toBeLessThan(500);
      expect(typeof res.body.detail).toBe('string');
    }
  });

  it('when the body is JSON, then 415 naming the form content type', async () => {
    const res = await svc.request('POST', '/token', { json: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client } });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: 'Unsupported content type. Expected application/x-www-form-urlencoded.' });
  });

  it('when the form is larger than any token request, then 413', async () => {
    const res = await svc.request('POST', '/token', { form: { client_id: 'x'.repeat(10_000), client_secret: 'y' } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body is too large.' });
  });

  it('when tokens are issued, then no secret or token reaches the logs', async () => {
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    const logs = svc.logs.join('');
    expect(logs).toContain('"route":"/token"');
    for (const secret of [SECRETS.alphaDispatch.client, SECRETS.betaOps.client, SECRETS.alphaOff.client, token]) {
      expect(logs).not.toContain(secret);
    }
  });
});
