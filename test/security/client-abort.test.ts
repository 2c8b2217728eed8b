import { connect } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src/http/error-handler.js';
import { createLogger } from '../../src/logger.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

/** Sends the headers and part of a body, then drops the connection. */
async function dropUpload(url: string, path: string, headers: string, type: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: telematics\r\n${headers}Content-Type: ${type}\r\nContent-Length: 5000\r\n\r\n{"records":[`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.resetAndDestroy();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

describe.each(DATABASE_KINDS)('a client dropping its upload on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it.each([
    ['an ingest batch', '/ingest/simmotors', `Authorization: Bearer ${SECRETS.ingest}\r\n`, 'application/json'],
    ['a token request', '/token', 'Accept: application/json\r\n', 'application/x-www-form-urlencoded'],
  ])('when %s is cut off mid-body, then it is logged as a client abort, not as an outage', async (_what, path, headers, type) => {
    const before = svc.logs.length;
    await dropUpload(svc.url, path, headers, type);
    const lines = svc.logs.slice(before).map((l) => JSON.parse(l));
    expect(lines.some((l) => /temporarily unavailable/.test(JSON.stringify(l)))).toBe(false);
    expect(lines.some((l) => l.level >= 40)).toBe(false);
    expect(lines.some((l) => l.msg === 'client closed the connection before its request was complete')).toBe(true);
    expect((await svc.request('GET', '/readyz')).status).toBe(200);
  });
});

describe('a database failing while the client is also leaving', () => {
  const logs: string[] = [];
  const logger: FastifyBaseLogger = createLogger('info', new Writable({ write(chunk, _e, done) { logs.push(String(chunk)); done(); } }));
  const app = Fastify({ loggerInstance: logger });
  let url: string;
  beforeAll(async () => {
    installErrorHandling(app);
    // The database refuses while the body is still on its way (as the ingest key check would).
    app.post('/ingest/x', {
      onRequest: async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      },
    }, async () => ({}));
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it('when the client drops its upload and the database fails too, then the outage is still logged as one', async () => {
    await dropUpload(url, '/ingest/x', '', 'application/json');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = logs.map((l) => JSON.parse(l));
    expect(lines.some((l) => l.level === 40 && l.msg === 'request failed: Service temporarily unavailable.')).toBe(true);
    expect(lines.some((l) => l.msg === 'client closed the connection before its request was complete')).toBe(false);
  });
});
