import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
