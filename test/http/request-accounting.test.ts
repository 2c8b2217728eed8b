/**
 * What every request leaves behind (src/http/request-accounting.ts), taken from Node's
 * `http.server.response.finish` channel rather than listeners on each response: over real
 * sockets, two services in one process each count and log only their own requests, with the
 * time each took; answers the route's hooks never see (404s, HEAD, refused content types, URLs
 * refused before routing) and answers made by `app.inject` (which no server announces) are
 * accounted for too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOf } from '../support/metrics-text.js';
import { rawRequest } from '../support/raw-http.js';
import { until } from '../support/until.js';
import { startTestService, type TestService } from '../support/test-service.js';

const requestLines = (svc: TestService) => svc.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');

describe('request accounting', () => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService('sqlite');
    b = await startTestService('sqlite');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('when two services in one process answer requests, then each counts and logs only its own, with the time each took', async () => {
    for (let i = 0; i < 3; i += 1) expect((await a.request('GET', '/vehicle')).status).toBe(401);
    const answered = await b.request('GET', '/vehicle/not-a-vin');
    expect(answered.status).toBe(401);
    for (let i = 0; i < 2; i += 1) expect((await b.request('GET', '/healthz')).status).toBe(200);

    const metricsOfA = (await a.request('GET', '/metrics')).text;
    const metricsOfB = (await b.request('GET', '/metrics')).text;
    expect(countOf(metricsOfA, 'GET', '/vehicle', 401)).toBe(3);
    expect(countOf(metricsOfB, 'GET', '/vehicle', 401)).toBe(0);
    expect(countOf(metricsOfB, 'GET', '/vehicle/:vin', 401)).toBe(1);
    expect(countOf(metricsOfA, 'GET', '/vehicle/:vin', 401)).toBe(0);
    // Probes log nothing (their route logs at warn) but are counted.
    expect(countOf(metricsOfB, 'GET', '/healthz', 200)).toBe(2);
    expect(countOf(metricsOfA, 'GET', '/healthz', 200)).toBe(0);

    const linesOfA = requestLines(a).filter((l) => l.route === '/vehicle');
    expect(linesOfA).toHaveLength(3);
    expect(requestLines(b).filter((l) => l.route === '/vehicle')).toEqual([]);
    const [lineOfB] = requestLines(b).filter((l) => l.route === '/vehicle/:vin');
    expect(lineOfB).toMatchObject({ method: 'GET', status: 401, reqId: answered.headers.get('x-request-id') });
    expect(requestLines(b).filter((l) => l.route === '/healthz')).toEqual([]);
    for (const line of [...linesOfA, lineOfB!]) {
      expect(typeof line.ms).toBe('number');
      expect(line.ms as number).toBeGreaterThanOrEqual(0);
      expect(line.ms as number).toBeLessThan(10_000);
    }
  });

  it('when a request is answered by app.inject, then it has its id header, its line and its count all the same', async () => {
    const before = countOf((await a.request('GET', '/metrics')).text, 'GET', '/vehicle', 401);
    const injected = await a.app.inject({ method: 'GET', url: '/vehicle', headers: { 'x-request-id': 'injected-1' } });
    expect(injected.statusCode).toBe(401);
    expect(injected.headers['x-request-id']).toBe('injected-1');
    expect(requestLines(a).filter((l) => l.reqId === 'injected-1')).toMatchObject([{ route: '/vehicle', status: 401, method: 'GET' }]);
    expect(countOf((await a.request('GET', '/metrics')).text, 'GET', '/vehicle', 401)).toBe(before + 1);
  });

  it('when answers come from the 404 handler, a HEAD, a refused content type or a URL refused before routing, then each has its id header, its count and its line', async () => {
    const cases = [
      { method: 'GET', path: '/no-such-route', status: 404, route: null },
      { method: 'HEAD', path: '/healthz', status: 200, route: '/healthz' },
      { method: 'POST', path: '/token', status: 415, route: '/token', headers: { 'content-type': 'text/plain' } },
      { method: 'GET', path: `/vehicle/${'A'.repeat(9000)}`, status: 414, route: null },
      { method: 'GET', path: '/vehicle/%E0%A4%A', status: 400, route: null },
    ];
    for (const c of cases) {
      const before = countOf((await a.request('GET', '/metrics')).text, c.method, c.route ?? 'unmatched', c.status);
      const res = await rawRequest(`${a.url}${c.path}`, { method: c.method, headers: c.headers });
      expect(res.status, c.path.slice(0, 40)).toBe(c.status);
      const reqId = res.headers['x-request-id'];
      expect(reqId, c.path.slice(0, 40)).toMatch(/^[0-9a-f-]{36}$/);
      await until(`the count of ${c.method} ${c.path.slice(0, 40)}`, async () => countOf((await a.request('GET', '/metrics')).text, c.method, c.route ?? 'unmatched', c.status) === before + 1, 5000, 20);
      // Probes log nothing at info; every other answer has its line.
      const lines = requestLines(a).filter((l) => l.reqId === reqId);
      if (c.route === '/healthz') expect(lines).toEqual([]);
      else expect(lines).toMatchObject([{ method: c.method, route: c.route, status: c.status }]);
    }
  });

});
