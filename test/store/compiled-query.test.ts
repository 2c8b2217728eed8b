import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { compiledQuery } from '../../src/store/compiled-query.js';
import { connectSqlite } from '../../src/store/sqlite/connect-sqlite.js';

describe('compiled queries', () => {
  const store = connectSqlite(':memory:');
  afterAll(() => store.close());

  it('when called with different parameters, then each call binds its own values', async () => {
    const echo = compiledQuery(2, (db, a: string, b: string) => db.selectNoFrom([sql<string>`${a}`.as('a'), sql<string>`${b}`.as('b')]));
    expect(await echo(store.db, 'x', 'y')).toEqual([{ a: 'x', b: 'y' }]);
    expect(await echo(store.db, 'p', 'q')).toEqual([{ a: 'p', b: 'q' }]);
  });

  it('when the builder binds its parameters out of order or adds constants, then the first call throws instead of binding wrongly', async () => {
    const swapped = compiledQuery(2, (db, a: string, b: string) => db.selectNoFrom([sql<string>`${b}`.as('b'), sql<string>`${a}`.as('a')]));
    await expect(swapped(store.db, 'x', 'y')).rejects.toThrow(/not its 2 parameters in order/);
    const extra = compiledQuery(1, (db, a: string) => db.selectNoFrom([sql<string>`${a}`.as('a'), sql<string>`${'constant'}`.as('c')]));
    await expect(extra(store.db, 'x')).rejects.toThrow(/not its 1 parameters/);
  });
});
