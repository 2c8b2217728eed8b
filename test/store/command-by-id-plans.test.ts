/**
 * Statements that find commands (webhook deliveries, tracker commands) by id and check their state must be
 * answered by the primary key, whatever PostgreSQL's statistics say. With the state compared
 * plainly (a literal, or a parameter, which a custom plan sees), PostgreSQL could answer them
 * from the partial index of Pending rows and read every Pending row to find a few ids: a
 * prepared initiation update did for every creation (docs/decisions/0021). Here the tables hold thousands
 * of Pending rows and no statistics (never analyzed, as before autovacuum gets to them), each
 * statement runs often enough on one connection for its plan to go generic, and the partial
 * indexes must not have been read at all.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { finishCommandRows } from '../../src/store/commands/finish.js';
import { markInitiatedRows } from '../../src/store/commands/initiate.js';
import { pollCommandNow } from '../../src/store/commands/poll.js';
import { claimDeliveries } from '../../src/store/webhooks/deliveries.js';
import { claimDeviceCommand, refuseDeviceCommand } from '../../src/store/device-commands-queries.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { flushStatistics, insertPendingCommands } from '../support/postgres-plans.js';

const T = Date.UTC(2026, 10, 28, 12);
const PENDING_BACKLOG = 5000;
/** A named statement is planned custom five times, then generic: past that, on one connection. */
const RUNS = 8;
/** The n-th row's key (from 1), as the inserts below write it with `lpad`. */
const keyOf = (prefix: string, n: number) => `${prefix}-${String(n).padStart(5, '0')}`;

describe.skipIf(!process.env.TEST_DATABASE_URL)('commands, deliveries and tracker commands found by id on PostgreSQL', () => {
  let database: TestDatabase;
  let store: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    store = openStore(database.url, { poolSize: 1 });
    await migrateToLatest(store);
    await insertPendingCommands(store.db, PENDING_BACKLOG, T);
    await sql`insert into webhook_deliveries (id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
      select 'dlv-' || lpad(n::text, 5, '0'), 'ep-1', 'evt-' || n, 'pending', 0, ${T}, ${T}, ${T}
      from generate_series(1, ${PENDING_BACKLOG}) as n`.execute(store.db);
    await sql`insert into device_commands (command_id, vin, device_id, command, text, created_at, deadline_at)
      select 'dev-' || lpad(n::text, 5, '0'), '1HGBH41JXMN109186', 'imei-1', 'diagnostics', 'getinfo', ${T}, ${T + 120_000}
      from generate_series(1, ${PENDING_BACKLOG}) as n`.execute(store.db);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** Rows these indexes have given so far to this database's sessions (this one's flushed first). */
  async function indexReads(...names: string[]): Promise<number> {
    await flushStatistics(store.db);
    const { rows } = await sql<{ read: string }>`select idx_tup_read as read from pg_stat_user_indexes where indexrelname in (${sql.join(names)})`.execute(store.db);
    expect(rows).toHaveLength(names.length);
    return rows.reduce((sum, r) => sum + Number(r.read), 0);
  }

  it('when initiations, outcomes and early polls are written one by one and in batches, then the partial index of Pending commands is never read', async () => {
    const before = await indexReads('commands_pending_due');
    let next = 0;
    const take = (n: number) => Array.from({ length: n }, () => keyOf('cmd', (next += 1)));
    for (let run = 0; run < RUNS; run += 1) {
      await markInitiatedRows(store.db, take(1).map((id) => ({ id, statusUrl: `http://oem/status/${id}`, firstPoll: T + 1000 })));
      await markInitiatedRows(store.db, take(12).map((id) => ({ id, statusUrl: `http://oem/status/${id}`, firstPoll: T + 1000 })));
      await finishCommandRows(store.db, take(12).map((id) => ({ id, status: 'Success' as const, detail: { ok: true }, now: T + 2000 })));
      await pollCommandNow(store.db, take(1)[0]!, T + 500);
    }
    expect(await indexReads('commands_pending_due')).toBe(before);

    // The writes landed: the test would pass vacuously if they matched nothing.
    const initiated = await store.db.selectFrom('commands').select((eb) => eb.fn.countAll<string>().as('n')).where('status_url', 'is not', null).executeTakeFirstOrThrow();
    const finished = await store.db.selectFrom('commands').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'Success').executeTakeFirstOrThrow();
    expect([Number(initiated.n), Number(finished.n)]).toEqual([RUNS * 13, RUNS * 12]);
  });

  it('when deliveries are claimed by id, then neither partial index of pending deliveries is read', async () => {
    const partials = ['webhook_deliveries_due', 'webhook_deliveries_endpoint_due'];
    const before = await indexReads(...partials);
    let claimed = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const batch = Array.from({ length: 8 }, (_, i) => keyOf('dlv', run * 8 + i + 1));
      claimed += (await claimDeliveries(store.db, batch, 'owner-1', T + 1, T + 60_000)).size;
    }
    expect(await indexReads(...partials)).toBe(before);
    expect(claimed).toBe(RUNS * 8);
  });

  it('when tracker commands are claimed or refused by id, then the partial index of unsent ones is never read', async () => {
    const before = await indexReads('device_commands_unsent');
    const outcomes: boolean[] = [];
    for (let run = 1; run <= RUNS; run += 1) {
      outcomes.push(await claimDeviceCommand(store.db, keyOf('dev', run), 'gateway-1', T + 1));
      outcomes.push(await claimDeviceCommand(store.db, keyOf('dev', run), 'gateway-2', T + 2));
      await refuseDeviceCommand(store.db, keyOf('dev', 100 + run), 'offline');
    }
    expect(await indexReads('device_commands_unsent')).toBe(before);
    // The guard still holds: each command is sent by one gateway, and refused ones are marked.
    expect(outcomes.filter(Boolean)).toHaveLength(RUNS);
    const refused = await store.db.selectFrom('device_commands').select((eb) => eb.fn.countAll<string>().as('n')).where('refusal', '=', 'offline').executeTakeFirstOrThrow();
    expect(Number(refused.n)).toBe(RUNS);
  });
});
