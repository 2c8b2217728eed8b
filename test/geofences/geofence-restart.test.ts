/**
 * A transition survives its evaluator being killed: the records of an entry are stored by an API
 * process, then a workers process judges them and is killed with SIGKILL. On PostgreSQL another
 * connection holds the event counter's table, so the kill comes while the evaluator waits inside
 * its transaction, its cursor and state written and its event not: nothing of that judgement is
 * left. (SQLite's one write lock would stop the process from starting at all, so there the kill
 * comes at once after start, wherever the first pass is.) The next workers process writes the
 * transition and its event, once.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { VEHICLE_SHARD_LEASE_MS } from '../../src/workers/vehicle-shard-lease.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { ALPHA_VINS, fixtureFleet, SECRETS } from '../support/fixture-fleet.js';
import { DEPOT, parkedWithJitter } from '../support/geofence-tracks.js';
import { BIN, serveEnv, startServiceProcess, startUnlistenedServiceProcess } from '../support/service-process.js';
import { scaled } from '../support/timeouts.js';

const VIN = ALPHA_VINS[0];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DATABASE_KINDS)('a geofence transition across a killed evaluator on %s', (kind) => {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-geofence-restart-'));
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    env = serveEnv(kind);
    const file = join(dir, 'fleet.json');
    writeFileSync(file, JSON.stringify(fixtureFleet()));
    const cli = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, ...args, '--database', database.url], { env });
    await cli('migrate');
    await cli('admin', 'apply', file);
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const geofenceEvents = async () => {
    const store = openStore(database.url, { poolSize: 1 });
    try {
      return await store.db.selectFrom('events').select(['id', 'type']).where('type', 'like', 'geofence.%').execute();
    } finally {
      await store.close();
    }
  };

  it('when the evaluator is killed between judging an entry and writing its event, then the next one writes it, once', { timeout: VEHICLE_SHARD_LEASE_MS + scaled(60_000) }, async () => {
    const api = await startServiceProcess(['--database', database.url, '--no-sim', '--role', 'api'], env);
    try {
      const token = await fetch(`${api.url}/token`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: `client_id=alpha-dispatch&client_secret=${SECRETS.alphaDispatch.client}`,
      });
      const auth = { authorization: `Bearer ${((await token.json()) as { token: string }).token}`, 'content-type': 'application/json' };
      const fence = await fetch(`${api.url}/geofences`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Depot', geometry: { type: 'Point', coordinates: [DEPOT.lon, DEPOT.lat] }, radius_m: 100 }) });
      expect(fence.status).toBe(201);
      const track = parkedWithJitter(Date.now() - 120_000, DEPOT, 0, 5, 110);
      const ingest = await fetch(`${api.url}/ingest/simmotors`, {
        method: 'POST', headers: { authorization: `Bearer ${SECRETS.ingest}`, 'content-type': 'application/json' },
        body: JSON.stringify({ records: track.map((p) => ({ vin: VIN, date_time: new Date(p.ts).toISOString(), latitude: p.lat, longitude: p.lon, speed: 0 })) }),
      });
      expect(await ingest.json()).toMatchObject({ accepted: track.length, rejected: [] });
    } finally {
      await api.stop();
    }

    if (kind === 'postgres') {
      const holder = openStore(database.url, { poolSize: 1 });
      let release!: () => void;
      const released = new Promise<void>((resolve) => { release = resolve; });
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => { locked = resolve; });
      const holding = holder.db.transaction().execute(async (trx) => {
        await sql`lock table event_positions in exclusive mode`.execute(trx);
        locked();
        await released;
      });
      await isLocked;
      try {
        const workers = await startUnlistenedServiceProcess(['--database', database.url, '--no-sim', '--role', 'workers'], env, 'background workers started');
        // The evaluator has written its cursor and waits for the event counter, inside its transaction
        // (a backend holding watch_cursors and waiting for event_positions: not the presence pass).
        const probe = openStore(database.url, { poolSize: 1 });
        try {
          await expect.poll(async () => Number((await sql<{ n: string }>`select count(*) as n from pg_locks w join pg_locks c on c.pid = w.pid
            where not w.granted and w.relation = 'event_positions'::regclass and c.granted and c.relation = 'watch_cursors'::regclass`.execute(probe.db)).rows[0]!.n), { timeout: scaled(10_000) }).toBeGreaterThan(0);
        } finally {
          await probe.close();
        }
        await workers.stop('SIGKILL');
      } finally {
        release();
        await holding;
        await holder.close();
      }
      expect(await geofenceEvents()).toEqual([]);
      const check = openStore(database.url, { poolSize: 1 });
      expect(await check.db.selectFrom('watch_cursors').selectAll().execute()).toEqual([]);
      expect(await check.db.selectFrom('geofence_states').selectAll().execute()).toEqual([]);
      await check.close();
    } else {
      const workers = await startUnlistenedServiceProcess(['--database', database.url, '--no-sim', '--role', 'workers'], env, 'background workers started');
      await workers.stop('SIGKILL');
    }

    const again = await startUnlistenedServiceProcess(['--database', database.url, '--no-sim', '--role', 'workers'], env, 'background workers started');
    try {
      // Once the killed process's shard lease has lapsed.
      await expect.poll(async () => (await geofenceEvents()).map((e) => e.type), { timeout: VEHICLE_SHARD_LEASE_MS + scaled(15_000), interval: 250 }).toEqual(['geofence.entered']);
      await sleep(scaled(1500));
      expect((await geofenceEvents()).map((e) => e.type)).toEqual(['geofence.entered']);
    } finally {
      await again.stop();
    }
  });
});
