/**
 * The service's SQLite connection leaves WAL checkpoints to a thread of its own: its commits do
 * not copy pages back into the database file, yet the WAL is checkpointed and reused all the same.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withStoreState } from '../../src/store/open-store.js';
import { connectSqlite } from '../../src/store/sqlite/connect-sqlite.js';
import type { StoreConnection } from '../../src/store/connection.js';

const dirs: string[] = [];
const stores: StoreConnection[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(background: boolean): Promise<{ store: StoreConnection; wal: () => number; main: () => number }> {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-checkpoints-'));
  dirs.push(dir);
  const file = join(dir, 'db.sqlite');
  const store = withStoreState(connectSqlite(file, false, background));
  stores.push(store);
  await sql`create table blobs (id integer primary key, body blob)`.execute(store.db);
  return { store, wal: () => statSync(`${file}-wal`).size, main: () => statSync(file).size };
}

/** ~4 MB of pages (1,000 of 4 KB), in 40 commits. */
async function writePages(store: StoreConnection): Promise<void> {
  for (let i = 0; i < 40; i += 1) await sql`insert into blobs (body) select randomblob(4000) from (select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9 union all select 10 union all select 11 union all select 12 union all select 13 union all select 14 union all select 15 union all select 16 union all select 17 union all select 18 union all select 19 union all select 20 union all select 21 union all select 22 union all select 23 union all select 24 union all select 25)`.execute(store.db);
}

describe('background checkpoints', () => {
  it('when the service writes, then its own commits do not checkpoint, the thread does, and the WAL is then reused', async () => {
    const { store, wal, main } = await open(true);
    // The connection's own checkpoints only past 10,000 pages (40 MB): a backstop.
    expect((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db)).rows[0]!.wal_autocheckpoint).toBe(10_000);
    await writePages(store);
    await writePages(store);
    // ~8 MB written, far below the backstop: only the thread can bring it into the database file.
    const deadline = Date.now() + 5_000;
    while (main() < 8_000_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(main()).toBeGreaterThan(8_000_000);
    // A few more passes, so the last one finds nothing new; the next commit then starts the WAL
    // from its beginning instead of growing it. (Under continuous writes a pass rarely ends with
    // nothing new: the backstop is what then restarts the WAL, every 10,000 pages.)
    await new Promise((resolve) => setTimeout(resolve, 300));
    const peak = wal();
    await writePages(store);
    expect(wal()).toBeLessThanOrEqual(peak);
    expect((await sql<{ n: number }>`select count(*) as n from blobs`.execute(store.db)).rows[0]!.n).toBe(3_000);
  });

  it('when a connection does not ask for it, then SQLite checkpoints on its commits as usual', async () => {
    const { store, wal } = await open(false);
    await writePages(store);
    await writePages(store);
    expect(wal()).toBeLessThan(6_000_000);
  });
});
