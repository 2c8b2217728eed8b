import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';

/** `telematics serve --ops-port`: what the API port and the operations listener each serve. */
describe('the operations listener', () => {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-ops-'));
  let served: ServiceProcess;
  let opsUrl: string;
  const env = { ...process.env, LOG_LEVEL: 'info' };

  beforeAll(async () => {
    served = await startServiceProcess(['--no-sim', '--database', join(dir, 'ops.db'), '--ops-port', '0'], env, 'operations listener');
    const line = served.output().split('\n').find((l) => l.includes('"operations listener'));
    opsUrl = JSON.parse(line!).url;
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('when --ops-port is set, then /metrics is not on the API port but health probes and the docs are', async () => {
    const metrics = await fetch(`${served.url}/metrics`);
    expect(metrics.status).toBe(404);
    expect(await metrics.json()).toEqual({ detail: 'Not found.' });
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${served.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${served.url}/docs/`)).status).toBe(200);
    expect((await fetch(`${served.url}/openapi.json`)).status).toBe(200);
  });

  it('when the operations listener is scraped, then it counts the API port\'s requests, answers probes, and serves nothing of the API', async () => {
    await fetch(`${served.url}/vehicle`);
    const metrics = await fetch(`${opsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('http_request_duration_seconds_count{method="GET",route="/vehicle",status="401"}');
    expect((await fetch(`${opsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${opsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${opsUrl}/vehicle`)).status).toBe(404);
    expect((await fetch(`${opsUrl}/docs/`)).status).toBe(404);
  });

  it('when the API port listens beyond loopback without --ops-port, then the start warns that /metrics is exposed', async () => {
    const exposed = await startServiceProcess(['--no-sim', '--host', '0.0.0.0', '--database', join(dir, 'exposed.db')], env, '/metrics is served on the API port');
    try {
      const line = exposed.output().split('\n').find((l) => l.includes('/metrics is served on the API port'));
      expect(JSON.parse(line!).level).toBe(40);
    } finally {
      await exposed.stop('SIGKILL');
    }
    expect(served.output()).not.toContain('/metrics is served on the API port');
  });

  it('when --no-docs is set, then /docs and /openapi.json are not served', async () => {
    const plain = await startServiceProcess(['--no-sim', '--no-docs', '--database', join(dir, 'nodocs.db')], env);
    try {
      expect((await fetch(`${plain.url}/docs/`)).status).toBe(404);
      expect((await fetch(`${plain.url}/openapi.json`)).status).toBe(404);
      // Without --ops-port, /metrics stays where it always was.
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(200);
    } finally {
      await plain.stop('SIGKILL');
    }
  });
});
