import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { batchedWrite } from '../../src/store/write-batcher.js';
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
});
