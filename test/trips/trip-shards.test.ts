/**
 * Trip detection split by VIN among workers through shard leases in the database, on both
 * databases: one worker holds every shard; a second one gets half within two passes and the two
 * never hold a shard together; a dead worker's shards move to the live one once its lease
 * lapses; a clean stop frees them at once; and two workers passing over one fleet each detect
 * only their own vehicles, together every trip once. On PostgreSQL, workers leasing at the same
 * moment never take one shard twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { TripInput } from '../../src/domain/trip-detection.js';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { vinPartition } from '../../src/domain/vin-partition.js';
import { TRIP_SHARD_COUNT } from '../../src/store/migrations/0018-trip-shards.js';
import { leaseTripShards } from '../../src/store/trip-shards-queries.js';
import { VehicleShardLease } from '../../src/workers/vehicle-shard-lease.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS } from '../support/fixture-fleet.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { iso, startTestService, type TestService } from '../support/test-service.js';

const LEASE = 15_000;
const quiet = pino({ level: 'silent' });
const settings = { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 86_400_000, intervalMs: 5000 };

describe.each(DATABASE_KINDS)('trip detection shards on %s', (kind) => {
  let svc: TestService;
  const lease = (owner: string, now: number) => leaseTripShards(svc.store.db, svc.store.capabilities, { owner, now, leaseMs: LEASE });
  const holders = async () => {
    const rows = await svc.store.db.selectFrom('trip_shards').select(['shard', 'owner']).orderBy('shard').execute();
    return rows.map((r) => r.owner);
  };
  const reset = async () => {
    await svc.store.db.updateTable('trip_shards').set({ owner: null, lease_until: 0 }).execute();
    await svc.store.db.deleteFrom('trip_workers').execute();
  };

  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when workers come and go, then the shards are shared fairly, never held twice, and a dead worker\'s move once its lease lapses', async () => {
    await reset();
    let now = 1_000_000;
    expect(await lease('a', now)).toHaveLength(TRIP_SHARD_COUNT);
    // b joins: nothing is free yet; a gives back half at its next pass; b takes it at its next.
    expect(await lease('b', (now += 1000))).toEqual([]);
    expect(await lease('a', (now += 4000))).toHaveLength(TRIP_SHARD_COUNT / 2);
    const b = await lease('b', (now += 1000));
    expect(b).toHaveLength(TRIP_SHARD_COUNT / 2);
    const owners = await holders();
    expect(owners.filter((o) => o === 'a')).toHaveLength(32);
    expect(owners.filter((o) => o === 'b')).toHaveLength(32);

    // a dies (no more passes): within its lease b keeps only its half; after it, b takes everything.
    now += 5000;
    expect(await lease('b', now)).toHaveLength(32);
    now += LEASE;
    expect(await lease('b', now)).toHaveLength(TRIP_SHARD_COUNT);
    expect(new Set(await holders())).toEqual(new Set(['b']));

    // Three workers: none over its share (⌈64 / 3⌉ = 22), every shard held, disjoint.
    await lease('c', (now += 1000));
    await lease('d', (now += 1000));
    for (let round = 0; round < 3; round++) for (const w of ['b', 'c', 'd']) await lease(w, (now += 1000));
    const three = await holders();
    expect(three.every((o) => o !== null)).toBe(true);
    const counts = ['b', 'c', 'd'].map((w) => three.filter((o) => o === w).length);
    expect(Math.max(...counts)).toBe(22);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(20);
  });

  it.runIf(kind === 'postgres')('when four workers lease at the same moment, round after round, then no shard is ever held by two and all are held', async () => {
    await reset();
    let now = 5_000_000;
    const workers = ['w1', 'w2', 'w3', 'w4'];
    for (let round = 0; round < 6; round++) {
      now += 5000;
      const results = await Promise.all(workers.map((w) => lease(w, now)));
      const all = results.flat();
      expect(new Set(all).size).toBe(all.length);
    }
    const owners = await holders();
    expect(owners.every((o) => o !== null)).toBe(true);
    expect(workers.map((w) => owners.filter((o) => o === w).length)).toEqual([16, 16, 16, 16]);
  });

  it('when two workers pass over one fleet, then each detects only the vehicles of its shards, together each trip once; a clean stop frees its shards', async () => {
    await reset();
    const vins = [ALPHA_VINS[0], ALPHA_VINS[1], ...BETA_VINS]; // the fixture's simmotors vehicles
    const start = svc.clock.now() - 90 * 60_000;
    for (const vin of vins) {
      const drive = syntheticDrive(start, [stand(600), move(50, 900), stand(1800)]);
      const records = drive.map((r: TripInput) => ({ vin, date_time: iso(r.ts), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer }));
      expect((await svc.ingest(records)).body.rejected).toEqual([]);
    }
    const first = new VehicleShardLease(svc.store, quiet, LEASE);
    const second = new VehicleShardLease(svc.store, quiet, LEASE);
    // Two passes each so the shares settle, then detect with both.
    await first.renew(svc.clock.now());
    await second.renew(svc.clock.now());
    await first.renew(svc.clock.now());
    await second.renew(svc.clock.now());
    expect(first.held.size + second.held.size).toBe(TRIP_SHARD_COUNT);
    for (const s of first.held) expect(second.held.has(s)).toBe(false);

    const a = await runTripDetectionOnce(svc.store, svc.clock, settings, { expire: false, shards: first });
    const b = await runTripDetectionOnce(svc.store, svc.clock, settings, { expire: false, shards: second });
    // Every vehicle that reported is a candidate on a first pass (no cursor yet); each worker visits its own.
    const mine = (lease: VehicleShardLease) => vins.filter((v) => lease.held.has(vinPartition(v, TRIP_SHARD_COUNT))).length;
    expect([a.vehicles, b.vehicles]).toEqual([mine(first), mine(second)]);
    expect(a.vehicles + b.vehicles).toBe(vins.length);
    const trips = await svc.store.db.selectFrom('trips').select(['vin']).where('vin', 'in', vins).execute();
    expect(trips.map((t) => t.vin).sort()).toEqual([...vins].sort());

    await first.release();
    expect((await second.renew(svc.clock.now())).size).toBe(TRIP_SHARD_COUNT);
  });
});
