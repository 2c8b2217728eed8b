/**
 * Ingest marks trip rewinds for many VINs in one statement, from many requests at once. On
 * PostgreSQL two such statements that lock the same cursors in different orders deadlock (found
 * by the scaling benchmark: one ingest answered 500); the rows must be locked in one order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { markTripRewinds } from '../../src/store/trips-queries.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

const VINS = Array.from({ length: 200 }, (_, i) => `1HGBH41JXMN${String(300_000 + i)}`);
const PROCESSED_UNTIL = 1_000_000;

/** A deterministic shuffle, so a failure can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe.each(DATABASE_KINDS)('markTripRewinds on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 8 });
    await migrateToLatest(store);
    await store.db.insertInto('trip_cursors')
      .values(VINS.map((vin) => ({ vin, processed_until: PROCESSED_UNTIL, rewind_from: null, state: '{}', updated_at: 0 })))
      .execute();
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('when eight requests mark the same 200 VINs at once in different orders, then none fails and each cursor keeps the earliest instant', async () => {
    const earliest = new Map<string, number>();
    for (let round = 0; round < 5; round++) {
      const calls = Array.from({ length: 8 }, (_, k) => {
        const marks = new Map<string, number>();
        for (const vin of shuffled(VINS, round * 8 + k + 1)) {
          const ts = PROCESSED_UNTIL - 1000 * (round * 8 + k + 1) - VINS.indexOf(vin);
          marks.set(vin, ts);
          if (!(earliest.get(vin)! <= ts)) earliest.set(vin, ts);
        }
        return markTripRewinds(store.db, store.capabilities, marks);
      });
      const outcomes = await Promise.allSettled(calls);
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    }
    const rows = await store.db.selectFrom('trip_cursors').select(['vin', 'rewind_from']).execute();
    expect(new Map(rows.map((r) => [r.vin, Number(r.rewind_from)]))).toEqual(earliest);
  });

  it('when an instant is after the cursor, then that cursor is left alone', async () => {
    const vin = VINS[0]!;
    await store.db.updateTable('trip_cursors').set({ rewind_from: null }).where('vin', '=', vin).execute();
    await markTripRewinds(store.db, store.capabilities, new Map([[vin, PROCESSED_UNTIL + 1]]));
    const row = await store.db.selectFrom('trip_cursors').select('rewind_from').where('vin', '=', vin).executeTakeFirstOrThrow();
    expect(row.rewind_from).toBeNull();
  });
});
