/**
 * The command writes of a group commit as one statement per batch (insertCommands,
 * markInitiatedRows, finishCommandRows): each row lands as its single-row form would, and a row
 * whose guard does not hold (not Pending, another worker's lease) is left alone and says so.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { finishCommandRows } from '../../src/store/commands/finish.js';
import { markInitiatedRows } from '../../src/store/commands/initiate.js';
import { insertCommands } from '../../src/store/commands/insert.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

const T = Date.UTC(2026, 10, 20, 12);

const command = (id: string, status = 'Pending') => ({
  id, application_id: 'app-1', company_id: 'acme', vin: '1HGBH41JXMN109186', oem: 'volta', command: 'diagnostics',
  status, detail: '{}', created_at: T, updated_at: T, deadline_at: T + 120_000, code_attempts: 0, poll_attempts: 0,
});

describe.each(DATABASE_KINDS)('command row statements on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 2 });
    await migrateToLatest(store);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  const read = (ids: string[]) => store.db.selectFrom('commands')
    .select(['id', 'status', 'detail', 'status_url', 'next_poll_at', 'updated_at', 'lease_owner']).where('id', 'in', ids).orderBy('id').execute();

  it('when three commands are inserted and initiated in one statement each, then every row holds its own values', async () => {
    const ids = ['c-01', 'c-02', 'c-03'];
    await insertCommands(store.db, ids.map((id) => command(id)));
    await markInitiatedRows(store.db, ids.map((id, i) => ({ id, statusUrl: `http://oem/status/${id}`, firstPoll: T + 1000 + i })));
    expect((await read(ids)).map((r) => [r.id, r.status, r.status_url, Number(r.next_poll_at)])).toEqual([
      ['c-01', 'Pending', 'http://oem/status/c-01', T + 1000],
      ['c-02', 'Pending', 'http://oem/status/c-02', T + 1001],
      ['c-03', 'Pending', 'http://oem/status/c-03', T + 1002],
    ]);
  });

  it('when one command is inserted and initiated alone, outside and inside a transaction, then each lands as a batch\'s rows do', async () => {
    await insertCommands(store.db, [command('s-01')]);
    await markInitiatedRows(store.db, [{ id: 's-01', statusUrl: 'http://oem/status/s-01', firstPoll: T + 1000 }]);
    // The same statements again in a transaction (another Db object): the texts compiled above serve it.
    await store.db.transaction().execute(async (trx) => {
      await insertCommands(trx, [command('s-02'), command('s-03', 'Success')]);
      await markInitiatedRows(trx, [{ id: 's-02', statusUrl: 'http://oem/status/s-02', firstPoll: T + 2000 }]);
      // A batch naming one command twice is written row by row, in order: the last one stays.
      await markInitiatedRows(trx, [
        { id: 's-03', statusUrl: 'http://oem/status/never', firstPoll: T + 1 },
        { id: 's-02', statusUrl: 'http://oem/status/first', firstPoll: T + 3000 },
        { id: 's-02', statusUrl: 'http://oem/status/second', firstPoll: T + 4000 },
      ]);
    });
    expect((await read(['s-01', 's-02', 's-03'])).map((r) => [r.id, r.status, r.status_url, r.next_poll_at === null ? null : Number(r.next_poll_at)])).toEqual([
      ['s-01', 'Pending', 'http://oem/status/s-01', T + 1000],
      ['s-02', 'Pending', 'http://oem/status/second', T + 4000],
      ['s-03', 'Success', null, null],
    ]);
  });

  it.skipIf(kind !== 'postgres')('when a batch of up to 16 commands is inserted, then its statement is prepared on the connection at first use (4 rows: 52 parameters), and a batch of 17 is not', async () => {
    const prepared = await store.db.transaction().execute(async (trx) => {
      await insertCommands(trx, ['p-01', 'p-02', 'p-03', 'p-04'].map((id) => command(id)));
      await insertCommands(trx, Array.from({ length: 17 }, (_, i) => command(`q-${String(i).padStart(2, '0')}`)));
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx);
      return rows.map((r) => r.statement);
    });
    const inserts = prepared.filter((text) => text.startsWith('insert into "commands"'));
    expect(inserts.some((text) => text.includes('$52') && !text.includes('$53'))).toBe(true);
    expect(inserts.some((text) => text.includes('$221'))).toBe(false);
  });

  it('when outcomes are recorded together, then only rows still Pending and held by the given lease change, and each answers whether it did', async () => {
    const ids = ['f-01', 'f-02', 'f-03', 'f-04', 'f-05'];
    await insertCommands(store.db, [command('f-01'), command('f-02'), command('f-03', 'Success'), command('f-04'), command('f-05')]);
    await store.db.updateTable('commands').set({ lease_owner: 'worker-a' }).where('id', 'in', ['f-01', 'f-02']).execute();
    await store.db.updateTable('commands').set({ lease_owner: 'worker-b' }).where('id', '=', 'f-04').execute();
    const landed = await finishCommandRows(store.db, [
      { id: 'f-01', status: 'Success', detail: { fuel_amount: 31.5 }, now: T + 5000, leaseOwner: 'worker-a' },
      { id: 'f-02', status: 'Error', detail: 'Command timeout.', now: T + 6000, leaseOwner: 'worker-a' },
      { id: 'f-03', status: 'Error', detail: 'Command timeout.', now: T + 7000 },
      { id: 'f-04', status: 'Success', detail: {}, now: T + 8000, leaseOwner: 'worker-a' },
      { id: 'f-05', status: 'Error', detail: 'Failed to send command to the OEM.', now: T + 9000 },
    ]);
    expect(landed).toEqual([true, true, false, false, true]);
    expect((await read(ids)).map((r) => [r.id, r.status, JSON.parse(r.detail), Number(r.updated_at), r.lease_owner])).toEqual([
      ['f-01', 'Success', { fuel_amount: 31.5 }, T + 5000, null],
      ['f-02', 'Error', 'Command timeout.', T + 6000, null],
      ['f-03', 'Success', {}, T, null],
      ['f-04', 'Pending', {}, T, 'worker-b'],
      ['f-05', 'Error', 'Failed to send command to the OEM.', T + 9000, null],
    ]);
  });

  it('when one batch names a command twice with different leases, then only the holder of the lease lands', async () => {
    await insertCommands(store.db, [command('d-01')]);
    await store.db.updateTable('commands').set({ lease_owner: 'worker-b' }).where('id', '=', 'd-01').execute();
    const landed = await finishCommandRows(store.db, [
      { id: 'd-01', status: 'Error', detail: 'Command timeout.', now: T + 1, leaseOwner: 'worker-a' },
      { id: 'd-01', status: 'Success', detail: { ok: 1 }, now: T + 2, leaseOwner: 'worker-b' },
    ]);
    expect(landed).toEqual([false, true]);
    expect((await read(['d-01']))[0]).toMatchObject({ status: 'Success', detail: '{"ok":1}' });
  });
});
