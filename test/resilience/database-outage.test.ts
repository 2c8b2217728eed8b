/**
 * PostgreSQL going away under load and coming back (restart, failover, partition), played with a
 * TCP proxy between the service process and the database: during the outage every request is
 * answered quickly with 503 and `Retry-After` (never a 500, never a hang), `/readyz` says 503,
 * `/healthz` stays 200; afterwards the service recovers by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { prepareProcessFleet, processToken, processVins } from '../support/process-fleet.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { scaled } from '../support/timeouts.js';

const VINS = processVins('9BWDBDWN', 3);
const OUTAGE_MS = 4000;

interface Answer { status: number; ms: number; at: number; detail: unknown; retryAfter: string | null }

describe.skipIf(!DATABASE_KINDS.includes('postgres'))('PostgreSQL outage under load', () => {
  let database: TestDatabase;
  let cloud: SimulatedOemCloud;
  let proxy: TcpProxy;
  let served: ServiceProcess | undefined;

  beforeAll(async () => {
    // Reached as an `http` OEM, which has no stored key to send: keyless, on loopback.
    cloud = new SimulatedOemCloud(() => undefined, systemClock, { latencyMs: [100, 200], seed: 1, apiKey: null });
    await cloud.listen();
    const fleet = await prepareProcessFleet('postgres', cloud.url, VINS);
    database = fleet.database;
    const direct = new URL(database.url);
    proxy = new TcpProxy(direct.hostname, Number(direct.port || 5432));
    const port = await proxy.listen();
    const proxied = new URL(database.url);
    proxied.port = String(port);
    served = await startServiceProcess(['--no-sim', '--database', proxied.toString(), '--database-pool-size', '4'], fleet.env);
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    await proxy?.close();
    await cloud?.close();
    await database?.drop();
  });

  it('when the database disappears for a few seconds, then requests get 503 fast, readiness says so, and service resumes by itself', async () => {
    const url = served!.url;
    const auth = { authorization: `Bearer ${await processToken(url)}` };
    const answers: Answer[] = [];
    let running = true;
    const reader = async (path: string) => {
      while (running) {
        const started = Date.now();
        let res: Response;
        try {
          res = await fetch(`${url}${path}`, { headers: auth, signal: AbortSignal.timeout(15_000) });
        } catch (error) {
          // The service itself unreachable: recorded as status 0, which the checks below refuse.
          answers.push({ status: 0, ms: Date.now() - started, at: started, detail: String((error as Error).cause ?? error), retryAfter: null });
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        const text = await res.text();
        let detail: unknown;
        try { detail = JSON.parse(text); } catch { detail = text; }
        answers.push({ status: res.status, ms: Date.now() - started, at: started, detail, retryAfter: res.headers.get('retry-after') });
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const readers = Promise.all([reader(`/vehicle/${VINS[0]}`), reader('/vehicle'), reader(`/vehicle/${VINS[1]}`)]);
    await new Promise((r) => setTimeout(r, 500));

    const cutAt = Date.now();
    await proxy.cut();
    await new Promise((r) => setTimeout(r, 1000));
    const readyDuring = await fetch(`${url}/readyz`).catch((error: Error) => {
      throw new Error(`the service is gone (${String(error.cause ?? error)}):\n${served!.output().slice(-3000)}`);
    });
    expect(readyDuring.status).toBe(503);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, OUTAGE_MS - 1000));
    const restoredAt = Date.now();
    await proxy.restore();

    let recoveredAt: number | undefined;
    while (Date.now() - restoredAt < 15_000) {
      const ready = await fetch(`${url}/readyz`);
      const last = answers.at(-1);
      if (ready.status === 200 && last?.status === 200 && last.at > restoredAt) {
        recoveredAt = Date.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await readers;

    expect(recoveredAt, `the service did not recover within 15 s:\n${served!.output().slice(-3000)}`).toBeDefined();
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([200, 503]);
    const during = answers.filter((a) => a.at > cutAt + 200 && a.at + a.ms < restoredAt);
    expect(during.length).toBeGreaterThan(10);
    for (const a of during) {
      expect(a).toMatchObject({ status: 503, detail: { detail: 'Service temporarily unavailable.' }, retryAfter: '5' });
      // Refused connections fail at once; a request caught mid-query fails when its connection drops.
      expect(a.ms).toBeLessThan(2000);
    }
    // Once recovered, it stays recovered.
    expect(answers.filter((a) => a.at > recoveredAt! && a.status !== 200)).toEqual([]);
  }, scaled(60_000));
});
