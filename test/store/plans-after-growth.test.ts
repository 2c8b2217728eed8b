/**
 * A prepared statement's generic plan is kept by its connection until the table's statistics
 * change. Planned on an empty `commands`, a status URL update of two rows scans the whole table
 * (cheaper than two index lookups on an empty table), and without ANALYZE (autovacuum off, as on
 * this project's test machine) it goes on doing so as the table grows. Pooled connections are
 * replaced after CONNECTION_LIFETIME_SECONDS, and with them their plans: here one of a second,
 * against a pool whose connections are kept, on the same database and the same rows.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { markInitiatedRows } from '../../src/store/commands/initiate.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { withStoreState } from '../../src/store/open-store.js';
import { connectPostgres } from '../../src/store/postgres/connect-postgres.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { flushStatistics, insertPendingCommands } from '../support/postgres-plans.js';

const T = Date.UTC(2026, 10, 29, 12);
const GROWN_TO = 20_000;
/** A named statement is planned custom five times, then generic: past that. */
const RUNS = 8;

describe.skipIf(!process.env.TEST_DATABASE_URL)('plans made on an empty table, on PostgreSQL', () => {
  let database: TestDatabase;
  let kept: StoreConnection;
  let renewed: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One connection each, so a store's statements, and its statistics, are one session's.
    kept = withStoreState(connectPostgres(database.url, 1, false, { connectionLifetimeSeconds: 0 }));
    renewed = withStoreState(connectPostgres(database.url, 1, false, { connectionLifetimeSeconds: 1 }));
    await migrateToLatest(kept);
  });
  afterAll(async () => {
    await kept?.close();
    await renewed?.close();
    await database?.drop();
  });

  const initiateTwo = (store: StoreConnection, n: number) => markInitiatedRows(store.db, [1, 2].map((k) => {
    const id = `cmd-${String(n * 2 + k).padStart(5, '0')}`;
    return { id, statusUrl: `http://oem/status/${id}`, firstPoll: T + 1000 };
  }));

  /** Rows of `commands` read by sequential scans, and its index scans, so far (this store's session flushed first). */
  async function reads(store: StoreConnection): Promise<{ scanned: number; byIndex: number }> {
    await flushStatistics(store.db);
    const { rows } = await sql<{ scanned: string; by_index: string }>`
      select seq_tup_read as scanned, idx_scan as by_index from pg_stat_user_tables where relname = 'commands'`.execute(store.db);
    return { scanned: Number(rows[0]!.scanned), byIndex: Number(rows[0]!.by_index) };
  }

  it('when the table grows after a batch update was planned on it empty, then a replaced connection plans it again and reads by key, while a kept one scans every row', async () => {
    for (let run = 0; run < RUNS; run += 1) {
      await initiateTwo(kept, run);
      await initiateTwo(renewed, run);
    }
    await insertPendingCommands(kept.db, GROWN_TO, T);
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const beforeKept = await reads(kept);
    await initiateTwo(kept, RUNS);
    expect((await reads(kept)).scanned - beforeKept.scanned).toBeGreaterThanOrEqual(GROWN_TO);

    const beforeRenewed = await reads(renewed);
    for (let run = RUNS + 1; run < 2 * RUNS + 1; run += 1) await initiateTwo(renewed, run);
    const afterRenewed = await reads(renewed);
    expect(afterRenewed.scanned - beforeRenewed.scanned).toBe(0);
    // By key: each update found its rows through an index (the primary key's, the only one that can).
    expect(afterRenewed.byIndex - beforeRenewed.byIndex).toBeGreaterThanOrEqual(RUNS);

    // The updates landed: reading nothing would pass vacuously.
    const initiated = await kept.db.selectFrom('commands').select((eb) => eb.fn.countAll<string>().as('n')).where('status_url', 'is not', null).executeTakeFirstOrThrow();
    expect(Number(initiated.n)).toBe(2 * (RUNS + 1));
  });
});
