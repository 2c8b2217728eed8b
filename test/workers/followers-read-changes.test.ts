/**
 * Issue 58: the followers of the store (trip detection, presence) cost what happens, not how many
 * vehicles are registered. 50,000 vehicles are registered, 10 of them report; the passes, run as
 * the `workers` role runs them (one shard lease, each follower's feed kept between passes), must
 * read only those 10:
 * - on both databases, the activity rows the feed reads, and the rows every statement of a pass
 *   returns, count the 10, not the fleet;
 * - on PostgreSQL, the database's own counters (tuples read from `vehicles`, `trip_cursors`,
 *   `vehicle_presence`, `vehicle_activity`, by scan or index, on a pool of one connection) grow by
 *   tens, not by 50,000;
 * - on SQLite, no statement of a pass scans one of those tables or telemetry: each is answered
 *   through an index (EXPLAIN QUERY PLAN of each statement it ran).
 * And the outcome is the one the fleet-wide passes had: the 10 go online and start a trip, then,
 * silent, end their trip and go offline; the 49,990 others make no event and get no cursor.
 */
import { CompiledQuery, sql, type KyselyPlugin, type QueryId, type RootOperationNode } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateFleetFile } from '../../src/domain/fleet-file.js';
import { PresenceFollower, runPresenceOnce } from '../../src/events/vehicle-presence.js';
import { storeTelemetryRows } from '../../src/intake/accept-telemetry.js';
import { applyFleet } from '../../src/registry/apply-fleet.js';
import { generateKeyringDocument, keyringFromDocument } from '../../src/security/keyring.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { readEventsAfter } from '../../src/store/events-queries.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore, withStoreState } from '../../src/store/open-store.js';
import { toTelemetryRow } from '../../src/store/telemetry/insert.js';
import { runTripDetectionOnce, tripFeedLagMs } from '../../src/trips/trip-worker.js';
import { VehicleChangeFeed } from '../../src/workers/vehicle-change-feed.js';
import { VehicleShardLease } from '../../src/workers/vehicle-shard-lease.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { fixtureFleet } from '../support/fixture-fleet.js';
import { flushStatistics } from '../support/postgres-plans.js';
import { scaled } from '../support/timeouts.js';
import { DEFAULT_TRIP_SETTINGS } from '../support/trip-settings.js';

const REGISTERED = 50_000;
const REPORTING = 10;
const T0 = Date.UTC(2026, 11, 2, 12);
const MIN = 60_000;
const quiet = pino({ level: 'silent' });
const trips = { ...DEFAULT_TRIP_SETTINGS, retentionMs: 90 * 86_400_000, intervalMs: 5000 };
const presence = { offlineAfterMs: 15 * MIN };
const intake = { retentionMs: 8 * 86_400_000, tripLatenessMs: trips.latenessMs };
const FOLLOWED_TABLES = ['vehicles', 'trip_cursors', 'vehicle_presence', 'vehicle_activity'];

/** A scan of one of those tables or telemetry, by name or by the alias the queries give it. */
const GROWING_TABLE_SCAN = /^SCAN (vehicles|trip_cursors|vehicle_presence|vehicle_activity|telemetry\w*|v|c|p|a|t)\b/;

const vinOf = (n: number) => `9TSTF${String(n).padStart(12, '0')}`;

/** Rows every statement returned, and each statement compiled (to ask SQLite how it reads). */
function watched(store: StoreConnection) {
  const log = { rows: 0, statements: [] as CompiledQuery[] };
  const nodes = new WeakMap<QueryId, RootOperationNode>();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      nodes.set(args.queryId, args.node);
      return args.node;
    },
    transformResult: async (args) => {
      log.rows += args.result.rows.length;
      const node = nodes.get(args.queryId);
      if (node) log.statements.push(store.db.getExecutor().compileQuery(node, args.queryId));
      return args.result;
    },
  };
  const counted = withStoreState({ ...store, db: store.db.withPlugin(plugin), close: () => store.close() });
  return { store: counted, log, reset: () => { log.rows = 0; log.statements.length = 0; } };
}

describe.each(DATABASE_KINDS)('followers of the store with %i registered vehicles on %s'.replace('%i', REGISTERED.toLocaleString('en-US')), (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  let now = T0;
  const clock = { now: () => now };
  const reporters = Array.from({ length: REPORTING }, (_, i) => vinOf(i * 4_999));

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // One connection, so that on PostgreSQL the statistics read are this store's session.
    store = openStore(database.url, { poolSize: 1 });
    await migrateToLatest(store);
    const fleet = validateFleetFile(fixtureFleet());
    if (!fleet.ok) throw new Error('fixture fleet invalid');
    await applyFleet(store.db, fleet.fleet, keyringFromDocument(generateKeyringDocument(), 'test'), T0);
    for (let from = 0; from < REGISTERED; from += 1000) {
      await store.db.insertInto('vehicles').values(Array.from({ length: 1000 }, (_, i) => ({
        vin: vinOf(from + i), company_id: 'alpha', plate: `T${from + i}`, oem: 'simmotors', model: 'Gol', year: 2022,
        status: 'active', ownership: 'owned', fuel_capacity: null, sim: null, device_protocol: null, device_id: null, created_at: T0, updated_at: T0,
      }))).execute();
    }
    if (kind === 'postgres') await sql`analyze`.execute(store.db);
  }, scaled(120_000));
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** Tuples PostgreSQL read from the followed tables so far, by scans and through indexes. */
  async function tuplesRead(): Promise<number> {
    await flushStatistics(store.db);
    const { rows } = await sql<{ n: string | null }>`
      select sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)) as n from pg_stat_user_tables
      where relname in (${sql.join(FOLLOWED_TABLES)})`.execute(store.db);
    return Number(rows[0]?.n ?? 0);
  }

  /** SQLite's plan of every select the pass ran: none may scan a table that grows with the fleet (the lease's 64 shards may be). */
  async function scansIn(statements: readonly CompiledQuery[]): Promise<string[]> {
    const scans: string[] = [];
    for (const q of statements) {
      if (!/^\s*select/i.test(q.sql)) continue;
      const plan = await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
      for (const step of plan.rows) if (GROWING_TABLE_SCAN.test(step.detail) && !/USING (COVERING )?INDEX/.test(step.detail)) scans.push(`${step.detail} in: ${q.sql}`);
    }
    return scans;
  }

  it('when 10 of them report, drive and fall silent, then every pass reads those 10 and the events are theirs alone', async () => {
    const { store: counted, log, reset } = watched(store);
    const lease = new VehicleShardLease(counted, quiet);
    const tripFeed = new VehicleChangeFeed(counted, lease, { lagMs: tripFeedLagMs(trips) });
    const follower = new PresenceFollower(counted, lease);
    const pass = async () => {
      reset();
      const before = kind === 'postgres' ? await tuplesRead() : 0;
      const fedBefore = tripFeed.rowsRead + follower.feed.rowsRead;
      const trip = await runTripDetectionOnce(counted, clock, trips, { expire: false, shards: lease, feed: tripFeed });
      const seen = await runPresenceOnce(counted, now, presence, follower);
      const activityRows = tripFeed.rowsRead + follower.feed.rowsRead - fedBefore;
      const tuples = kind === 'postgres' ? (await tuplesRead()) - before : undefined;
      const scans = kind === 'sqlite' ? await scansIn(log.statements) : [];
      return { trip, seen, activityRows, rows: log.rows, tuples, scans };
    };

    // Nothing reported yet: the first look of each follower reads nothing but the lease.
    const idle = await pass();
    expect(idle.activityRows).toBe(0);
    expect(idle.trip.vehicles).toBe(0);
    expect(idle.scans).toEqual([]);
    if (idle.tuples !== undefined) expect(idle.tuples).toBeLessThan(100);

    // The 10 drive for 20 minutes at 50 km/h, reporting every 10 s, stored as the intake stores them.
    const driveStart = now;
    for (let t = 0; t <= 20 * MIN; t += 10_000) {
      now = driveStart + t;
      const rows = reporters.map((vin, i) => toTelemetryRow({
        vin, ts: now, values: { speed: 50, latitude: -23.5 + i * 0.01 + t * 1e-8, longitude: -46.6, odometer: 1000 + t / 72_000 }, flag: null,
      }, now));
      await storeTelemetryRows(store, rows, now, intake);
      if (t % (5 * MIN) === 0) {
        const driving = await pass();
        expect(driving.scans).toEqual([]);
        // Each follower reads the 10 activity rows (the trip feed looks back further: still the 10).
        expect(driving.activityRows).toBeLessThanOrEqual(2 * REPORTING);
        expect(driving.rows).toBeLessThan(500);
        if (driving.tuples !== undefined) expect(driving.tuples).toBeLessThan(500);
      }
    }

    // Silent for 30 minutes, in passes 5 s apart as the worker runs: the trips end, the 10 go offline.
    let ended = 0;
    let offline = 0;
    const silentFrom = now;
    while (now < silentFrom + 30 * MIN) {
      now += 5000;
      const silent = await pass();
      ended += silent.trip.trips;
      offline += silent.seen.offline;
      expect(silent.scans).toEqual([]);
      expect(silent.rows).toBeLessThan(500);
      if (silent.tuples !== undefined) expect(silent.tuples).toBeLessThan(500);
    }
    expect(ended).toBe(REPORTING);
    expect(offline).toBe(REPORTING);

    // And then idle again: the look behind has passed, nothing is read but the lease and indexes.
    const after = await pass();
    expect(after.activityRows).toBe(0);
    if (after.tuples !== undefined) expect(after.tuples).toBeLessThan(100);

    const events = await readEventsAfter(store, 0, 1000);
    const byType = (type: string) => events.filter((e) => e.type === type).map((e) => e.vin).sort();
    expect(byType('vehicle.online')).toEqual([...reporters].sort());
    expect(byType('vehicle.offline')).toEqual([...reporters].sort());
    expect(byType('trip.started')).toEqual([...reporters].sort());
    expect(byType('trip.ended')).toEqual([...reporters].sort());
    const cursors = await store.db.selectFrom('trip_cursors').select('vin').execute();
    expect(cursors.map((c) => c.vin).sort()).toEqual([...reporters].sort());
  }, scaled(180_000));
});
