import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpConnector } from '../../src/oem/http-connector.js';
import { OemFailure } from '../../src/oem/oem-connector.js';

/** A real automaker peer whose answer each test chooses; it records every request it gets. */
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let handler: Handler;
const seen: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

const connector = (timeoutMs = 2_000) => new HttpConnector({ baseUrl: base, initiateTimeoutMs: timeoutMs, pollTimeoutMs: timeoutMs });
const json = (res: ServerResponse, status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
const request = { commandId: 'c1', vin: '9BWZZZ377VT004251', command: 'diagnostics' };

async function failure(promise: Promise<unknown>): Promise<OemFailure> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(OemFailure);
  return error as OemFailure;
}

describe('HTTP connector, initiate', () => {
  it('when the automaker answers a status URL on its own origin, then that URL comes back and the request carried id, vin and command', async () => {
    let sent: unknown;
    handler = (_req, res, body) => { sent = JSON.parse(body); json(res, 202, { status_url: `${base}/status/c1` }); };
    expect(await connector().initiate(request)).toEqual({ statusUrl: `${base}/status/c1` });
    expect(sent).toEqual({ id: 'c1', vin: request.vin, command: 'diagnostics' });
  });

  it.each([
    ['another host', () => 'http://169.254.169.254/latest/meta-data'],
    ['another port', () => base.replace(/:\d+$/, ':1')],
    ['not a URL', () => 'status/c1'],
    // Look-alikes that begin with the origin's text: a longer port, a user-info prefix, a longer host.
    ['a port the origin\'s is a prefix of', () => `${base}9/status/c1`],
    ['another host behind user info', () => `${base}@169.254.169.254/status/c1`],
    ['a host the origin\'s is a prefix of', () => `${base.replace(/:\d+$/, '')}.example.com/status/c1`],
  ])('when the status URL points at %s, then initiate fails as "initiate"', async (_name, url) => {
    handler = (_req, res) => json(res, 200, { status_url: url() });
    expect((await failure(connector().initiate(request))).kind).toBe('initiate');
  });

  it.each([
    ['an upper-case scheme and host (parsed, then compared)', () => `${base.toUpperCase()}/status/c1`],
    ['a query and a fragment', () => `${base}/status/c1?x=1#f`],
  ])('when the status URL is on the origin, spelled with %s, then it is accepted as is', async (_name, url) => {
    handler = (_req, res) => json(res, 200, { status_url: url() });
    expect(await connector().initiate(request)).toEqual({ statusUrl: url() });
  });

  it('when the automaker redirects, then the redirect is not followed and initiate fails as "initiate"', async () => {
    seen.length = 0;
    handler = (req, res) => (req.url === '/commands' ? res.writeHead(307, { location: `${base}/elsewhere` }).end() : json(res, 200, { status_url: `${base}/s` }));
    expect((await failure(connector().initiate(request))).kind).toBe('initiate');
    expect(seen).toEqual(['POST /commands']);
  });

  it.each([
    ['answers 503', (_q: IncomingMessage, res: ServerResponse) => json(res, 503, {})],
    ['never answers', () => {}],
  ])('when the automaker %s, then initiate fails as "send"', async (_name, h) => {
    handler = h;
    expect((await failure(connector(200).initiate(request))).kind).toBe('send');
  });

  it('when nothing listens, then initiate fails as "send"', async () => {
    const gone = new HttpConnector({ baseUrl: 'http://127.0.0.1:1', initiateTimeoutMs: 2_000, pollTimeoutMs: 2_000 });
    expect((await failure(gone.initiate(request))).kind).toBe('send');
  });

  it.each([
    ['an empty body', (_q: IncomingMessage, res: ServerResponse) => res.writeHead(200).end()],
    ['a body that is not JSON', (_q: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('<html>')],
    ['a body over 64 KiB', (_q: IncomingMessage, res: ServerResponse) => json(res, 200, { status_url: `${base}/s`, pad: 'x'.repeat(70_000) })],
    ['a 4xx refusal', (_q: IncomingMessage, res: ServerResponse) => json(res, 409, { error: 'busy' })],
  ])('when the automaker answers %s, then initiate fails as "initiate"', async (_name, h) => {
    handler = h;
    expect((await failure(connector().initiate(request))).kind).toBe('initiate');
  });

  it('when an endless body streams in, then reading stops at the cap instead of buffering it', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(16_384);
      const pump = () => { while (res.write(chunk)) { /* until the socket pushes back */ } };
      res.on('drain', pump);
      pump();
    };
    expect((await failure(connector().initiate(request))).kind).toBe('initiate');
  });
});

describe('HTTP connector, poll', () => {
  it.each([
    [{ status: 'pending' }, { state: 'pending' }],
    [{ status: 'success', result: { odometer: 12 } }, { state: 'success', result: { odometer: 12 } }],
    [{ status: 'success', result: [1, 2] }, { state: 'success', result: {} }],
    [{ status: 'error', error: 'vehicle_offline' }, { state: 'error', reason: 'vehicle_offline' }],
    [{ status: 'weird' }, { state: 'error', reason: 'internal' }],
  ])('when the status answer is %j, then the state is %j', async (answer, state) => {
    handler = (_req, res) => json(res, 200, answer);
    expect(await connector().poll(`${base}/status/c1`)).toEqual(state);
  });

  it('when the status URL is on another origin, then nothing is fetched and the command fails', async () => {
    seen.length = 0;
    expect(await connector().poll('http://127.0.0.1:1/status/c1?token=t0ken')).toEqual({
      state: 'error', reason: 'internal', why: `its status URL (http://127.0.0.1:1) is not at the automaker's configured origin (${new URL(base).origin})`,
    });
    expect(seen).toEqual([]);
  });

  it('when the automaker answers a status URL with 404 (it forgot the command), then the command fails, saying so', async () => {
    handler = (_req, res) => json(res, 404, { error: 'unknown command' });
    expect(await connector().poll(`${base}/status/c1`)).toEqual({ state: 'error', reason: 'internal', why: 'the automaker answered its status URL with 404' });
  });

  it.each([
    ['answers 500', (_q: IncomingMessage, res: ServerResponse) => json(res, 500, {})],
    ['answers 429', (_q: IncomingMessage, res: ServerResponse) => json(res, 429, {})],
    ['hangs', () => {}],
    ['answers over 64 KiB', (_q: IncomingMessage, res: ServerResponse) => json(res, 200, { status: 'pending', pad: 'x'.repeat(70_000) })],
  ])('when the automaker %s, then poll throws "send" (to be polled again)', async (_name, h) => {
    handler = h;
    expect((await failure(connector(200).poll(`${base}/status/c1`))).kind).toBe('send');
  });

  it('when many polls run back to back, then connections are reused (keep-alive)', async () => {
    const sockets = new Set<unknown>();
    handler = (req, res) => { sockets.add(req.socket); json(res, 200, { status: 'pending' }); };
    const c = connector();
    for (let i = 0; i < 20; i += 1) {
      await c.poll(`${base}/status/c1`);
      // undici hands a connection out again one event-loop turn after its answer (in case the
      // server closes it after all); a poll made within that turn would take a second connection.
      await new Promise((r) => setImmediate(r));
    }
    expect(sockets.size).toBe(1);
  });

  it('when the automaker\'s base URL carries user info, then it is sent as Basic credentials, as node:http did', async () => {
    let authorization: string | undefined;
    handler = (req, res) => { authorization = req.headers.authorization; json(res, 200, { status: 'pending' }); };
    const withUser = base.replace('http://', 'http://fleet:p%40ss@');
    const c = new HttpConnector({ baseUrl: withUser, initiateTimeoutMs: 2_000, pollTimeoutMs: 2_000 });
    expect(await c.poll(`${withUser}/status/c1`)).toEqual({ state: 'pending' });
    expect(authorization).toBe(`Basic ${Buffer.from('fleet:p@ss').toString('base64')}`);
  });

  it('when the deadline passes while the connection is still being made, then initiate fails at the deadline, and that connection, once made, serves the next exchange', async () => {
    let connections = 0;
    const counted = () => { connections += 1; };
    server.on('connection', counted);
    seen.length = 0;
    const port = new URL(base).port;
    handler = (_req, res) => json(res, 200, { status: 'pending' });
    // The name resolves only when the test lets it: the connection is made after the deadline.
    let resolveName!: () => void;
    const named = new Promise<void>((r) => { resolveName = r; });
    const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      void named.then(() => (options?.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)));
    }) as LookupFunction;
    try {
      const c = new HttpConnector({ baseUrl: `http://localhost:${port}`, initiateTimeoutMs: 100, pollTimeoutMs: 2_000, lookup });
      const started = Date.now();
      const error = await failure(c.initiate(request));
      expect(error.kind).toBe('send');
      expect(error.message).toMatch(/no complete answer within 100 ms/);
      expect(Date.now() - started).toBeLessThan(1_000);
      resolveName();
      await new Promise((r) => setTimeout(r, 50));
      expect(await c.poll(`http://localhost:${port}/status/c1`)).toEqual({ state: 'pending' });
      // The request that timed out was never sent, and the connection made for it was kept.
      expect(seen).toEqual(['GET /status/c1']);
      expect(connections).toBe(1);
    } finally {
      server.off('connection', counted);
    }
  });
});
