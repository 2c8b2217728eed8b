import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { RowsStatement } from '../../src/store/group-commit.js';
import { backgroundWritesSettled, batchedRows, batchedRowsInBackground, batchedWrite } from '../../src/store/write-batcher.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

describe.each(DATABASE_KINDS)('group commit on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  let other: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 3 });
    other = openStore(database.url, { poolSize: 1 });
    await sql`create table items (id integer primary key, label text not null)`.execute(store.db);
  });
  afterAll(async () => {
    await other?.close();
    await store?.close();
    await database?.drop();
  });

  const insert = (id: number, label: string) => batchedWrite(store, async (trx) => {
    await sql`insert into items (id, label) values (${id}, ${label})`.execute(trx);
    return id;
  });
  const labels = async () => (await sql<{ id: number; label: string }>`select id, label from items order by id`.execute(other.db)).rows.map((r) => `${r.id}:${r.label}`);

  it('when writes are queued in one turn, then each caller gets its own result and every row is visible to another connection once they resolve', async () => {
    expect(await Promise.all([insert(1, 'a'), insert(2, 'b'), insert(3, 'c')])).toEqual([1, 2, 3]);
    expect(await labels()).toEqual(['1:a', '2:b', '3:c']);
  });

  it('when one write of a batch fails, then only its caller sees the error and the others are stored', async () => {
    const outcomes = await Promise.allSettled([insert(4, 'd'), insert(1, 'duplicate'), insert(5, 'e')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await labels()).toEqual(['1:a', '2:b', '3:c', '4:d', '5:e']);
  });

  it('when more writes arrive than one batch holds, then all are stored', async () => {
    const ids = Array.from({ length: 600 }, (_, i) => 100 + i);
    expect(await Promise.all(ids.map((id) => insert(id, 'x')))).toEqual(ids);
    expect((await labels()).length).toBe(605);
  });

  /** A statement of one multi-row insert per call, counting in `calls` the rows of each call. */
  const countedInsert = (calls: number[]): RowsStatement<{ id: number; label: string }, number> => async (db, rows) => {
    calls.push(rows.length);
    await sql`insert into items (id, label) values ${sql.join(rows.map((r) => sql`(${r.id}, ${r.label})`))}`.execute(db);
    return rows.map((r) => r.id);
  };
  const calls: number[] = [];
  const insertRows = countedInsert(calls);
  const insertRow = (id: number, label: string) => batchedRows(store, insertRows, { id, label });
  const idsIn = (from: number, to: number) => (label: string) => Number(label.split(':')[0]) >= from && Number(label.split(':')[0]) < to;

  it('when rows for one statement are queued in one turn, then one call writes them all and each caller gets its own result', async () => {
    calls.length = 0;
    expect(await Promise.all([insertRow(2001, 'r'), insertRow(2002, 's'), insertRow(2003, 't')])).toEqual([2001, 2002, 2003]);
    expect(calls).toEqual([3]);
    expect((await labels()).filter(idsIn(2000, 2010))).toEqual(['2001:r', '2002:s', '2003:t']);
  });

  it('when rows and other writes share a turn, then they commit together and each caller gets its own result', async () => {
    calls.length = 0;
    expect(await Promise.all([insertRow(2011, 'a'), insert(2012, 'b'), insertRow(2013, 'c')])).toEqual([2011, 2012, 2013]);
    expect(calls).toEqual([2]);
    expect((await labels()).filter(idsIn(2010, 2020))).toEqual(['2011:a', '2012:b', '2013:c']);
  });

  it('when one row of a statement fails, then only its caller sees the error and the other rows are stored', async () => {
    calls.length = 0;
    const outcomes = await Promise.allSettled([insertRow(2021, 'a'), insertRow(2001, 'duplicate'), insertRow(2023, 'c')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual([3, 1, 1, 1]);
    expect((await labels()).filter((l) => idsIn(2000, 2010)(l) || idsIn(2020, 2030)(l))).toEqual(['2001:r', '2002:s', '2003:t', '2021:a', '2023:c']);
  });

  /** A second row statement, so a batch holds two kinds of rows. */
  const otherCalls: number[] = [];
  const insertOtherRows = countedInsert(otherCalls);
  const insertOtherRow = (id: number, label: string) => batchedRows(store, insertOtherRows, { id, label });

  it('when a row of one statement fails beside another statement\'s rows, then only the failing row is refused and the other statement is retried only where the batch shared a transaction', async () => {
    calls.length = 0;
    otherCalls.length = 0;
    const outcomes = await Promise.allSettled([insertOtherRow(2033, 'c'), insertRow(2031, 'a'), insertRow(2001, 'duplicate')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    // PostgreSQL commits each statement of a rows-only batch on its own; SQLite shares one
    // transaction, so its failure sends both statements round again, each alone.
    const shared = !store.capabilities.concurrentWriters;
    expect(calls).toEqual(shared ? [2, 2, 1, 1] : [2, 1, 1]);
    expect(otherCalls).toEqual(shared ? [1, 1] : [1]);
    expect((await labels()).filter(idsIn(2030, 2040))).toEqual(['2031:a', '2033:c']);
  });

  /** A background row; its failures collected in `failures`. */
  const failures: unknown[] = [];
  const inBackground = (statement: RowsStatement<{ id: number; label: string }, number>, id: number, label: string) =>
    batchedRowsInBackground(store, statement, { id, label }, (error) => failures.push(error));

  /** `insertRows`, whose first call waits until `release`. */
  function firstCallHeld() {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let first = true;
    const holdingFirst: RowsStatement<{ id: number; label: string }, number> = async (db, rows) => {
      if (first) { first = false; await held; }
      return insertRows(db, rows);
    };
    return { holdingFirst, release };
  }

  it.runIf(kind === 'postgres')('when background rows arrive on PostgreSQL while one background batch commits, then their callers may answer at once, the rows go together in the next batch, and the settled promise waits for both', async () => {
    calls.length = 0;
    const { holdingFirst, release } = firstCallHeld();
    await inBackground(holdingFirst, 2051, 'a');
    await new Promise((resolve) => setTimeout(resolve, 20)); // the first batch is in its statement
    await Promise.all([2052, 2053, 2054].map((id) => inBackground(holdingFirst, id, 'b')));
    let settled = false;
    const allSettled = backgroundWritesSettled(store).then(() => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([]);
    expect(settled).toBe(false);
    release();
    await allSettled;
    expect(calls).toEqual([1, 3]);
    expect((await labels()).filter(idsIn(2050, 2060))).toEqual(['2051:a', '2052:b', '2053:b', '2054:b']);
  });

  it.runIf(kind === 'sqlite')('when a background row is written on SQLite, then its caller may answer once it is committed, in the turn\'s group commit', async () => {
    calls.length = 0;
    const [background, other] = [inBackground(insertRows, 2055, 'a'), insertRow(2056, 'b')];
    await background;
    expect((await labels()).filter(idsIn(2050, 2060))).toEqual(['2055:a', '2056:b']);
    expect(calls).toEqual([2]);
    await other;
  });

  it.runIf(kind === 'postgres')('when a whole batch of background rows is already waiting on PostgreSQL, then the next caller waits for its commit, and every row is stored', async () => {
    calls.length = 0;
    const { holdingFirst, release } = firstCallHeld();
    await inBackground(holdingFirst, 3000, 'a');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const ids = Array.from({ length: 257 }, (_, i) => 3001 + i);
    const answered = ids.map((id) => inBackground(holdingFirst, id, 'b'));
    await Promise.all(answered.slice(0, 256)); // a batch's worth may answer at once
    let lastAnswered = false;
    void answered[256]!.then(() => { lastAnswered = true; });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lastAnswered).toBe(false);
    release();
    await answered[256];
    await backgroundWritesSettled(store);
    expect(calls).toEqual([1, 256, 1]);
    expect((await labels()).filter(idsIn(3000, 3300))).toHaveLength(258);
  });

  it('when a failure report itself throws, then nothing else fails', async () => {
    await batchedRowsInBackground(store, insertRows, { id: 2001, label: 'duplicate' }, () => { throw new Error('the report failed'); });
    expect(await backgroundWritesSettled(store)).toBe(0);
  });

  it('when a background row fails, then only it is reported, the others are stored, and nothing is left to settle', async () => {
    failures.length = 0;
    await Promise.all([2061, 2001, 2063].map((id) => inBackground(insertRows, id, 'c')));
    await backgroundWritesSettled(store);
    expect(failures).toHaveLength(1);
    expect((await labels()).filter(idsIn(2060, 2070))).toEqual(['2061:c', '2063:c']);
    await backgroundWritesSettled(other); // a store that never had one
  });

  it.runIf(kind === 'postgres')('when a batch holds only row statements on PostgreSQL, then each commits on its own while the others still run', async () => {
    let otherCommitted!: () => void;
    const committed = new Promise<void>((resolve) => { otherCommitted = resolve; });
    // Went the batch through one transaction, `waiting` (first in it) would wait for ever: it
    // gives up after 3 s instead, so the test fails with its writes refused, not by hanging.
    let gaveUp = false;
    const giveUp = new Promise<void>((_, reject) => setTimeout(() => { gaveUp = true; reject(new Error('the statements waited on each other')); }, 3000).unref());
    giveUp.catch(() => undefined);
    const waiting: RowsStatement<{ id: number; label: string }, number> = async (db, rows) => {
      if (gaveUp) throw new Error('gave up before');
      await Promise.race([committed, giveUp]);
      return insertRows(db, rows);
    };
    const signalling: RowsStatement<{ id: number; label: string }, number> = async (db, rows) => {
      const ids = await insertRows(db, rows);
      // Seen from another connection while `waiting` still runs: committed on its own.
      setImmediate(() => void labels().then((seen) => { if (seen.includes('2042:b')) otherCommitted(); }, () => undefined));
      return ids;
    };
    const outcomes = await Promise.allSettled([batchedRows(store, waiting, { id: 2041, label: 'a' }), batchedRows(store, signalling, { id: 2042, label: 'b' })]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect((await labels()).filter(idsIn(2040, 2050))).toEqual(['2041:a', '2042:b']);
  });
});
