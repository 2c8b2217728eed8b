import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe.each(DATABASE_KINDS)('operations endpoints on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when probed, then /healthz and /readyz answer without authentication', async () => {
    expect(await svc.request('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await svc.request('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('when the OpenAPI document is fetched, then it is 3.1 and describes every operation with its schemas', async () => {
    const res = await svc.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/token', '/vehicle', '/vehicle/{vin}', '/healthz', '/readyz']));
    expect(res.body.paths['/token'].post.requestBody.content).toHaveProperty(['application/x-www-form-urlencoded']);
    expect(res.body.paths['/vehicle/{vin}'].get.security).toEqual([{ bearerAuth: [] }]);
    const vehicle = JSON.stringify(res.body.components.schemas);
    for (const field of ['company', 'vin', 'plate', 'oem', 'model', 'year', 'status', 'created']) expect(vehicle).toContain(`"${field}"`);
  });

  it("when /docs is opened, then an HTML page is served under the service's name and icon, not the framework's", async () => {
    const res = await svc.request('GET', '/docs/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('<title>Vehicle Telematics Service: API</title>');
    expect(res.text).not.toMatch(/Swagger UI|favicon-32x32/);
    const icon = /<link rel="icon" type="image\/svg\+xml" href="\.(\/static\/theme\/favicon\.svg)"/.exec(res.text);
    expect(icon).not.toBeNull();
    const served = await svc.request('GET', `/docs${icon![1]}`);
    expect({ status: served.status, type: served.headers.get('content-type') }).toMatchObject({ status: 200, type: expect.stringContaining('image/svg+xml') });
    // The top bar's logo is replaced by one that reads the service's name.
    const initializer = await svc.request('GET', '/docs/static/swagger-initializer.js');
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(initializer.text);
    expect(Buffer.from(logo![1]!, 'base64').toString('utf8')).toContain('>Vehicle Telematics Service</text>');
  });

  it('when /metrics is scraped, then request counts are labelled by route template, not by raw URL', async () => {
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    await svc.request('GET', '/vehicle/9BWZZZ377VT100001', { headers: { authorization: `Bearer ${token}` } });
    const res = await svc.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_request_duration_seconds_count{method="GET",route="/vehicle/:vin",status="200"}');
    expect(res.text).not.toContain('9BWZZZ377VT100001');
  });

  it('when /metrics is scraped, then each request series is a Prometheus histogram: cumulative buckets, +Inf equal to the count, the sum of the durations', async () => {
    const before = (await svc.request('GET', '/metrics')).text;
    const countOf = (text: string) => Number(/^http_request_duration_seconds_count\{method="GET",route="\/readyz",status="200"\} (\S+)$/m.exec(text)?.[1] ?? 0);
    for (let i = 0; i < 3; i += 1) expect((await svc.request('GET', '/readyz')).status).toBe(200);
    const text = (await svc.request('GET', '/metrics')).text;
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(countOf(text) - countOf(before)).toBe(3);
    const series = '{method="GET",route="/readyz",status="200"}';
    const buckets = [...text.matchAll(/^http_request_duration_seconds_bucket\{le="([^"]+)",method="GET",route="\/readyz",status="200"\} (\S+)$/gm)].map((m) => [m[1], Number(m[2])] as const);
    expect(buckets.map(([le]) => le)).toEqual(['0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']);
    for (let i = 1; i < buckets.length; i += 1) expect(buckets[i]![1]).toBeGreaterThanOrEqual(buckets[i - 1]![1]);
    expect(buckets.at(-1)![1]).toBe(countOf(text));
    const sum = Number(new RegExp(`^http_request_duration_seconds_sum${series.replace(/[{}/]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(countOf(text) * 10);
  });

  it('when a request carries a plain X-Request-Id, then it is echoed and logged; otherwise one is generated', async () => {
    const given = await svc.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const hostile = await svc.request('GET', '/vehicle', { headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const line = svc.logs.map((l) => JSON.parse(l)).find((l) => l.reqId === hostile.headers.get('x-request-id') && l.msg === 'request');
    expect(line).toMatchObject({ msg: 'request', route: '/vehicle', method: 'GET', status: 401 });
    // Exactly the request's own fields (it skips redaction: nothing else may reach it), and a
    // probe's route level (`warn`) still keeps its successes out of the log.
    expect(Object.keys(line).filter((k) => !['level', 'time', 'pid', 'hostname', 'service'].includes(k)).sort()).toEqual(['method', 'ms', 'msg', 'reqId', 'route', 'status']);
    expect(svc.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.route === '/healthz')).toEqual([]);
  });

  it('when the database is closed underneath, then /readyz says 503 and the process keeps serving /healthz', async () => {
    const other = await startTestService(kind);
    try {
      await other.store.close();
      const res = await other.request('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'Service temporarily unavailable.' });
      expect((await other.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
