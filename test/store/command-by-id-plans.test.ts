/**
 * Statements that find one command by id and check it is still Pending must be answered by the
 * primary key, whatever PostgreSQL's statistics say. With the state written as the literal
 * 'Pending', PostgreSQL could answer them from the partial index of Pending commands
 * (commands_pending_due) and read every Pending row to find one id: a prepared initiation
 * update did, once its plan went generic, for every creation (issue 22). Here the table holds
 * thousands of Pending commands and no statistics (never analyzed, as before autovacuum gets to
 * it), each statement runs often enough on one connection for its plan to go generic, and the
 * partial index must not have been read at all.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { finishCommandRows, markInitiatedRows, pollCommandNow } from '../../src/store/commands-queries.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

const T = Date.UTC(2026, 10, 28, 12);
const PENDING_BACKLOG = 5000;
/** A named statement is planned custom five times, then generic: past that, on one connection. */
const RUNS = 8;

describe.skipIf(!process.env.TEST_DATABASE_URL)('commands found by id on PostgreSQL', () => {
  let database: TestDatabase;
  let store: StoreConnection;
  let ids: string[];
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    store = openStore(database.url, { poolSize: 1 });
    await migrateToLatest(store);
    await sql`insert into commands (id, application_id, company_id, vin, oem, command, status, detail, created_at, updated_at, deadline_at, code_attempts, poll_attempts)
      select 'cmd-' || lpad(n::text, 5, '0'), 'app-1', 'acme', '1HGBH41JXMN109186', 'volta', 'diagnostics', 'Pending', '{}', ${T}, ${T}, ${T + 3_600_000}, 0, 0
      from generate_series(1, ${PENDING_BACKLOG}) as n`.execute(store.db);
    ids = Array.from({ length: PENDING_BACKLOG }, (_, i) => `cmd-${String(i + 1).padStart(5, '0')}`);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** Rows of commands_pending_due read so far by this database's sessions (this one's flushed first). */
  async function partialIndexReads(): Promise<number> {
    await sql`select pg_stat_force_next_flush()`.execute(store.db);
    await sql`select pg_stat_clear_snapshot()`.execute(store.db);
    const { rows } = await sql<{ read: string }>`select idx_tup_read as read from pg_stat_user_indexes where indexrelname = 'commands_pending_due'`.execute(store.db);
    return Number(rows[0]!.read);
  }

  it('when initiations, outcomes and early polls are written one by one and in batches, then the partial index of Pending commands is never read', async () => {
    const before = await partialIndexReads();
    let next = 0;
    const take = (n: number) => ids.slice(next, (next += n));
    for (let run = 0; run < RUNS; run += 1) {
      await markInitiatedRows(store.db, take(1).map((id) => ({ id, statusUrl: `http://oem/status/${id}`, firstPoll: T + 1000 })));
      await markInitiatedRows(store.db, take(12).map((id) => ({ id, statusUrl: `http://oem/status/${id}`, firstPoll: T + 1000 })));
      await finishCommandRows(store.db, take(12).map((id) => ({ id, status: 'Success' as const, detail: { ok: true }, now: T + 2000 })));
      await pollCommandNow(store.db, take(1)[0]!, T + 500);
    }
    expect(await partialIndexReads()).toBe(before);

    // The writes landed: the test would pass vacuously if they matched nothing.
    const initiated = await store.db.selectFrom('commands').select((eb) => eb.fn.countAll<string>().as('n')).where('status_url', 'is not', null).executeTakeFirstOrThrow();
    const finished = await store.db.selectFrom('commands').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'Success').executeTakeFirstOrThrow();
    expect([Number(initiated.n), Number(finished.n)]).toEqual([RUNS * 13, RUNS * 12]);
  });
});
