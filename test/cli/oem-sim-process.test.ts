/** `telematics oem-sim` as its own process, pushing a fleet file's simulated vehicles into a running service. */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, fixtureFleet, SECRETS } from '../support/fixture-fleet.js';
import { commandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { scaled } from '../support/timeouts.js';
import { until } from '../support/until.js';

const BIN = new URL('../../bin/telematics.js', import.meta.url).pathname;

describe.each(DATABASE_KINDS)('telematics oem-sim on %s', (kind) => {
  let svc: TestService;
  let dir: string;
  let fleetFile: string;
  beforeAll(async () => {
    svc = await startTestService(kind);
    // The process uses the real clock; keep the service's clock on it too so records are recent.
    svc.clock.t = Date.now();
    dir = mkdtempSync(join(tmpdir(), 'oem-sim-'));
    fleetFile = join(dir, 'fleet.json');
    writeFileSync(fleetFile, JSON.stringify(fixtureFleet()));
  });
  afterAll(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when started with a backfill, then the sim vehicles of the file get that history and it keeps running until SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'oem-sim', '--fleet', fleetFile, '--ingest-url', svc.url, '--backfill', '30m', '--seed', '9', '--log-level', 'warn', '--port', '0', '--latency', '100-200'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => { err += String(c); });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no backfill summary:\n${err}`)), scaled(20_000));
      const poll = setInterval(() => {
        if (/simulated fleet backfill: .* records stored, 0 rejected/.test(err)) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve();
        }
      }, 50);
    });
    // Its automaker cloud answers commands for the same vehicles.
    svc.useSimulatedCloudAt(/simulated automaker cloud: (http:\/\/\S+)/.exec(err)![1], svc.connectorSettings.simCloudKey);
    const client = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    const created = await client.send({ vin: ALPHA_VINS[0], command: 'diagnostics' });
    expect(created.body.status).toBe('Pending');
    let outcome = created;
    for (let i = 0; i < 50 && outcome.body.status !== 'Success'; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      svc.clock.t = Date.now() + 2000;
      await svc.worker.runOnce();
      outcome = await client.status(created.body.id);
    }
    expect(outcome.body).toMatchObject({ status: 'Success', detail: { fuel_capacity: 55 } });

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const counts = await svc.store.db.selectFrom('telemetry').select(['vin', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('vin').execute();
    const byVin = Object.fromEntries(counts.map((c) => [c.vin, Number(c.n)]));
    // The http-connector vehicle (ALPHA_VINS[2]) is not simulated; the others get 30 min at 10 s.
    expect(Object.keys(byVin).sort()).toEqual([ALPHA_VINS[0], ALPHA_VINS[1], BETA_VINS[0], BETA_VINS[1]].sort());
    for (const n of Object.values(byVin)) expect(n).toBeGreaterThanOrEqual(180);
  });

  it('when started with TELEMATICS_OEM_SIM_KEY, then its cloud refuses requests without that key (401) and serves the service that sends it', async () => {
    const key = 'oem-sim-process-test-key-0123456789abcdefghij';
    const child = spawn(process.execPath, [BIN, 'oem-sim', '--fleet', fleetFile, '--ingest-url', svc.url, '--log-level', 'warn', '--port', '0', '--latency', '100-200'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TELEMATICS_OEM_SIM_KEY: key } });
    let err = '';
    child.stderr.on('data', (c) => { err += String(c); });
    try {
      await until('the simulated automaker cloud to listen', async () => /simulated automaker cloud: (http:\/\/\S+)/.test(err), 10_000, 50);
      const cloudUrl = /simulated automaker cloud: (http:\/\/\S+)/.exec(err)![1]!;
      const command = { id: '00000000-0000-4000-8000-000000000001', vin: ALPHA_VINS[0], command: 'disable_ignition' };
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${key}x`]) {
        const res = await fetch(`${cloudUrl}/commands`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body: JSON.stringify(command) });
        expect(res.status).toBe(401);
      }
      svc.useSimulatedCloudAt(cloudUrl, key);
      const client = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
      expect((await client.send({ vin: ALPHA_VINS[0], command: 'diagnostics' })).body.status).toBe('Pending');
    } finally {
      svc.useSimulatedCloudAt(svc.connectorSettings.simCloudUrl, undefined);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('when the key is shorter than 32 characters, then it exits with a one-line error', async () => {
    const failure = await promisify(execFile)(process.execPath, [BIN, 'oem-sim', '--fleet', fleetFile, '--ingest-url', svc.url, '--api-key', 'short'], { env: process.env }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toBe('telematics: --api-key (TELEMATICS_OEM_SIM_KEY) must be at least 32 characters\n');
  });

  it('when the fleet file has no key for a sim OEM and none is given, then it exits with a one-line error', async () => {
    const fleet = fixtureFleet();
    delete fleet.oems[0]!.ingest_key;
    const file = join(dir, 'nokey.json');
    writeFileSync(file, JSON.stringify(fleet));
    const failure = await promisify(execFile)(process.execPath, [BIN, 'oem-sim', '--fleet', file, '--ingest-url', svc.url], { env: { ...process.env, TELEMATICS_INGEST_KEY: '' } }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toBe('telematics: OEM "simmotors" has no ingest_key in the fleet file; pass --ingest-key\n');
  });
});
