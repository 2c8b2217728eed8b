/**
 * Hostile input, the way the world sends it: property-based bodies of every wrong type on every
 * route (fast-check), then the classics by hand: deep nesting, huge lists and bodies, invalid
 * UTF-8, wrong content types, absurd dates, raw HTTP that breaks the protocol. Every answer must
 * be a 4xx with `{"detail": "<text>"}` (or a 200 where the input happens to be valid), never a
 * 5xx; afterwards the service still answers and its memory has not run away.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, type TestResponse, type TestService } from '../support/test-service.js';

const RUNS = 60;

/** A 4xx must carry `{"detail": string}` and nothing else; a 5xx is always a failure. */
function expectClean(res: TestResponse, what: string): void {
  if (res.status >= 500) throw new Error(`${what}: answered ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status >= 400) {
    if (typeof res.body?.detail !== 'string' || Object.keys(res.body).length !== 1) {
      throw new Error(`${what}: ${res.status} without a {"detail"} body: ${res.text.slice(0, 300)}`);
    }
  }
}

const NASTY_STRINGS = [
  '', ' ', '\u0000', 'null', 'undefined', '__proto__', 'constructor', '../../etc/passwd', "' OR 1=1 --", '"; DROP TABLE telemetry; --',
  '%00', '%2e%2e%2f', '\ud800', '\udfff\ud800', '\u202e', '😀'.repeat(50), 'a'.repeat(20_000), '9BWZZZ377VT100001', '9bwzzz377vt100001',
  '2026-11-20', '2026-11-20T12:00:00', '2026-11-20T12:00:00-03:00', '9999-12-31T23:59:59', '0000-01-01', '+275760-09-13T00:00:00Z',
  '-271821-04-20', '2026-02-30', '2026-11-20T25:61:61', '2026-11-20T12:00:00+99:00', '2026-11-20T12:00:00.123456789Z', '1e309', 'NaN',
  'Infinity', '-0', '0x1F', '1'.repeat(400), 'speed', 'vin', 'flag', 'date_time', 'diagnostics', 'disable_ignition',
];
const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }),
);
const anyJson = fc.jsonValue({ maxDepth: 4 });
const nastyValue = fc.oneof(
  nastyString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(-1, 0, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2),
  fc.array(nastyString, { maxLength: 30 }), anyJson, fc.dictionary(nastyString, anyJson, { maxKeys: 4 }),
);
const vinList = fc.oneof(nastyValue, fc.array(fc.oneof(fc.constantFrom(...ALPHA_VINS), nastyString), { maxLength: 25 }));
const nameList = fc.oneof(nastyValue, fc.array(fc.oneof(fc.constantFrom('speed', 'vin', 'date_time', 'distance', 'flag'), nastyString), { maxLength: 25 }));
const withExtras = <T>(arb: fc.Arbitrary<T>) => fc.tuple(arb, fc.dictionary(nastyString, nastyValue, { maxKeys: 3 })).map(([a, extra]) => ({ ...extra, ...a }));

const dataBody = withExtras(fc.record({ vins: vinList, datapoints: nameList, start_date: nastyValue, end_date: nastyValue }, { requiredKeys: [] }));
const commandBody = withExtras(fc.record({ vin: fc.oneof(fc.constantFrom(...ALPHA_VINS), nastyValue), command: nastyValue, code: nastyValue }, { requiredKeys: [] }));
const ingestRecord = withExtras(fc.record({
  vin: fc.oneof(fc.constantFrom(...ALPHA_VINS), nastyValue), date_time: fc.oneof(fc.constant(iso(Date.UTC(2026, 10, 20, 11))), nastyValue),
  speed: nastyValue, latitude: nastyValue, flag: nastyValue, event: nastyValue,
}, { requiredKeys: [] }));
const ingestBody = fc.oneof(fc.record({ records: fc.oneof(nastyValue, fc.array(ingestRecord, { maxLength: 20 })) }, { requiredKeys: [] }), nastyValue);
const contentType = fc.oneof(
  fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'text/plain', 'application/xml',
    'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json, text/plain', '*/*', '', 'application/vnd.api+json'),
  nastyString.filter((s) => /^[\x20-\x7e]*$/.test(s)),
);

/** Sends raw bytes and returns the status and body of whatever comes back. */
function raw(url: string, request: string | Buffer): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.on('data', (c) => chunks.push(c));
    // A server that refuses a request before reading all of it closes with bytes unread, so the
    // kernel resets the connection; from Node 24 on, the client sees that reset as an error even
    // after the whole answer arrived. An answer received is the answer; a reset before one fails.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' || chunks.length === 0) reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.end(request);
  });
}

describe.each(DATABASE_KINDS)('hostile input on %s', (kind) => {
  let svc: TestService;
  let auth: Record<string, string>;
  let rssBefore: number;

  beforeAll(async () => {
    svc = await startTestService(kind);
    await svc.useSimulatedCloud();
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    expect((await svc.ingest([{ vin: ALPHA_VINS[0], date_time: iso(svc.clock.now() - 3_600_000), speed: 10 }])).status).toBe(200);
    rssBefore = process.memoryUsage().rss;
  });
  afterAll(async () => { await svc?.close(); });

  const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    svc.request(method, path, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...auth, ...headers } });

  it('POST /vehicle-data with bodies of every wrong type', async () => {
    await fc.assert(fc.asyncProperty(dataBody, async (body) => { expectClean(await send('POST', '/vehicle-data', body), `vehicle-data ${JSON.stringify(body).slice(0, 200)}`); }), { numRuns: RUNS });
  });

  it('POST /vehicle-trips with bodies of every wrong type', async () => {
    await fc.assert(fc.asyncProperty(dataBody, async (body) => { expectClean(await send('POST', '/vehicle-trips', body), `vehicle-trips ${JSON.stringify(body).slice(0, 200)}`); }), { numRuns: RUNS });
  });

  it('POST /vehicle-command with bodies and signatures of every wrong type', async () => {
    await fc.assert(fc.asyncProperty(commandBody, fc.oneof(nastyString.filter((s) => /^[\x20-\x7e]*$/.test(s)), fc.constant('valid')), async (body, signature) => {
      const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
      const sig = signature === 'valid' ? sign(SECRETS.alphaDispatch.sign, text(body.vin), text(body.command)) : signature;
      expectClean(await send('POST', '/vehicle-command', body, { 'x-signature': sig }), `vehicle-command ${JSON.stringify(body).slice(0, 200)}`);
    }), { numRuns: RUNS });
  });

  it('POST /ingest/{oem} with records of every wrong type', async () => {
    await fc.assert(fc.asyncProperty(ingestBody, async (body) => {
      expectClean(await send('POST', '/ingest/simmotors', body, { authorization: `Bearer ${SECRETS.ingest}` }), `ingest ${JSON.stringify(body).slice(0, 200)}`);
    }), { numRuns: RUNS });
  });

  it('POST /token with form fields of every kind', async () => {
    const field = fc.oneof(nastyString, fc.constantFrom('alpha-dispatch', SECRETS.alphaDispatch.client));
    await fc.assert(fc.asyncProperty(fc.dictionary(fc.constantFrom('client_id', 'client_secret', 'username', 'password', 'grant_type', '__proto__', 'x'), field), async (form) => {
      const res = await svc.request('POST', '/token', { raw: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' } });
      expectClean(res, `token ${JSON.stringify(form).slice(0, 200)}`);
    }), { numRuns: RUNS });
  });

  it('every route with path parameters of every kind', async () => {
    // A lone surrogate cannot be percent-encoded as UTF-8: send the raw bytes such a string would be.
    const segment = nastyString.map((s) => { try { return encodeURIComponent(s); } catch { return '%ED%A0%80'; } });
    await fc.assert(fc.asyncProperty(fc.constantFrom('/vehicle/', '/vehicle-command/', '/ingest/'), segment, async (prefix, param) => {
      const res = await svc.request(prefix === '/ingest/' ? 'POST' : 'GET', `${prefix}${param}`, { headers: auth, ...(prefix === '/ingest/' ? { json: { records: [] } } : {}) });
      expectClean(res, `${prefix}${param.slice(0, 100)}`);
    }), { numRuns: RUNS });
  });

  it('every body route with content types of every kind', async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom('/vehicle-data', '/vehicle-trips', '/vehicle-command', '/ingest/simmotors', '/token'), contentType, async (path, type) => {
      const res = await svc.request('POST', path, { raw: '{"vins":["9BWZZZ377VT100001"]}', headers: { ...auth, 'content-type': type, accept: 'application/json' } });
      expectClean(res, `${path} as ${type}`);
    }), { numRuns: RUNS });
  });

  // `refused`: must be a 4xx; `either`: valid after all (a BOM is skipped), so a 200 is fine too.
  it.each([
    ['nested 50,000 deep', 'refused', '['.repeat(50_000) + ']'.repeat(50_000)],
    ['nested objects 20,000 deep', 'refused', '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000)],
    ['10,000 VINs', 'refused', JSON.stringify({ vins: Array.from({ length: 10_000 }, (_, i) => `9BW${String(i).padStart(14, '0')}`), datapoints: ['speed'] })],
    ['10,000 copies of one VIN (they count once)', 'either', JSON.stringify({ vins: Array.from({ length: 10_000 }, () => ALPHA_VINS[0]), datapoints: ['speed'] })],
    ['10,000 datapoints', 'refused', JSON.stringify({ vins: [ALPHA_VINS[0]], datapoints: Array.from({ length: 10_000 }, () => 'speed') })],
    ['a 2 MB body', 'refused', JSON.stringify({ vins: [ALPHA_VINS[0]], datapoints: ['speed'], pad: 'x'.repeat(2_000_000) })],
    ['truncated JSON', 'refused', '{"vins": ["9BWZZZ377VT100001"'],
    ['JSON with a BOM', 'either', '\ufeff{"vins":["9BWZZZ377VT100001"],"datapoints":["speed"]}'],
    ['a bare number', 'refused', '1e999999'],
    ['duplicate keys', 'refused', '{"vins":["9BWZZZ377VT100001"],"vins":"x","datapoints":["speed"]}'],
    ['__proto__ keys', 'refused', '{"__proto__":{"vins":["9BWZZZ377VT100001"]},"constructor":{"prototype":{"x":1}},"datapoints":["speed"]}'],
  ])('POST /vehicle-data with %s', async (what, outcome, body) => {
    const res = await send('POST', '/vehicle-data', body);
    expectClean(res, what);
    if (outcome === 'refused') expect(res.status).toBeGreaterThanOrEqual(400);
  });

  it('POST /ingest/{oem} with 10,000 records is refused whole, and nothing is stored', async () => {
    const count = async () => Number((await svc.store.db.selectFrom('telemetry').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const records = Array.from({ length: 10_000 }, (_, i) => ({ vin: ALPHA_VINS[0], date_time: iso(svc.clock.now() - 7_200_000 + i * 100), speed: 1 }));
    const res = await send('POST', '/ingest/simmotors', { records }, { authorization: `Bearer ${SECRETS.ingest}` });
    expectClean(res, '10,000 records');
    expect(res.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('bodies that are not valid UTF-8 get a 4xx', async () => {
    const bytes = Buffer.concat([Buffer.from('{"vins":["'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('"],"datapoints":["speed"]}')]);
    const { port, hostname } = new URL(svc.url);
    const res = await raw(svc.url, Buffer.concat([
      Buffer.from(`POST /vehicle-data HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`),
      bytes,
    ]));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.parse(res.body)).toEqual({ detail: expect.any(String) });
  });

  it.each([
    ['a CR inside a header value', 'GET /vehicle HTTP/1.1\r\nHost: x\r\nX-Signature: a\rInjected: 1\r\nConnection: close\r\n\r\n'],
    ['a NUL inside a header value', 'GET /vehicle HTTP/1.1\r\nHost: x\r\nX-Test: a\u0000b\r\nConnection: close\r\n\r\n'],
    ['two Content-Lengths', 'POST /vehicle-data HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{}'],
    ['Content-Length with Transfer-Encoding (smuggling)', 'POST /vehicle-data HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n'],
    ['a 64 KiB header', `GET /vehicle HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(65_536)}\r\nConnection: close\r\n\r\n`],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['an obsolete folded header', 'GET /vehicle HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n abc\r\nConnection: close\r\n\r\n'],
  ])('raw HTTP with %s gets a 4xx with a detail body', async (_what, request) => {
    const res = await raw(svc.url, request);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.parse(res.body)).toEqual({ detail: expect.any(String) });
  });

  it('afterwards the service still answers, and memory has not run away', async () => {
    expect((await svc.request('GET', '/healthz')).status).toBe(200);
    expect((await svc.request('GET', `/vehicle/${ALPHA_VINS[0]}`, { headers: auth })).status).toBe(200);
    // The test process holds the service and every generated input: a loose bound on its growth.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024);
  });
});
