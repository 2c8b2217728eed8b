import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestSummary } from '../../src/http/ingest-summary.js';
import { createLogger } from '../../src/logger.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

describe.each(DATABASE_KINDS)('ingest in the log on %s', (kind) => {
  let svc: TestService;
  const summaryLines: string[] = [];
  let summary: IngestSummary;
  beforeAll(async () => {
    summary = new IngestSummary(createLogger('info', new Writable({ write(chunk, _e, done) { summaryLines.push(String(chunk)); done(); } })));
    svc = await startTestService(kind, undefined, { http: { ingestSummary: summary } });
  });
  afterAll(async () => { await svc?.close(); });

  const requestLines = () => svc.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.route === '/ingest/:oem');

  it('when automakers push, then successes make no line each but one summary line per period, and refusals keep their own line', async () => {
    const record = (s: number, speed: unknown) => ({ vin: '9BWZZZ377VT100001', date_time: iso(T0 - 60_000 + s * 1000), speed });
    expect((await svc.ingest([record(1, 10), record(2, 11)])).status).toBe(200);
    expect((await svc.ingest([record(3, 12), { vin: 'short' }])).status).toBe(200);
    expect((await svc.ingest([record(4, 13)], { key: 'tik_wrong-key-wrong-key-wrong-key-wrong' })).status).toBe(401);

    expect(requestLines()).toEqual([expect.objectContaining({ status: 401 })]);
    summary.flush();
    const [line, ...more] = summaryLines.map((l) => JSON.parse(l));
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 30, requests: 2, accepted: 3, rejected: 1, oems: { simmotors: { requests: 2, accepted: 3, rejected: 1 } } });
    expect(line.msg).toMatch(/^ingest: 2 requests, 3 records accepted, 1 rejected in the last \d+ s$/);

    summary.flush();
    expect(summaryLines).toHaveLength(1); // nothing new, nothing logged
  });
});

describe.each(DATABASE_KINDS)('the service\'s own ingest summary on %s', (kind) => {
  it('when the service closes, then what arrived since the last summary is logged, not lost', async () => {
    const svc = await startTestService(kind);
    try {
      expect((await svc.ingest([{ vin: '9BWZZZ377VT100001', date_time: iso(T0 - 30_000), speed: 5 }])).status).toBe(200);
    } finally {
      await svc.close();
    }
    const lines = svc.logs.map((l) => JSON.parse(l)).filter((l) => typeof l.msg === 'string' && l.msg.startsWith('ingest: '));
    expect(lines).toEqual([expect.objectContaining({ requests: 1, accepted: 1, rejected: 0 })]);
  });
});
