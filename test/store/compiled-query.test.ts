import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { compiledQuery, compiledRowsQuery } from '../../src/store/compiled-query.js';
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

  it('when a rows statement is called with batches of different sizes, then each binds its rows in order, inside a transaction too', async () => {
    const rows = compiledRowsQuery<{ a: string; n: number }, { a: string; n: number }>(2, (r) => [r.a, r.n], (db, given) => ({
      compile: () => sql<{ a: string; n: number }>`${sql.join(given.map(([a, n]) => sql`select ${a} as a, ${n} as n`), sql` union all `)}`.compile(db),
    }));
    expect(await rows(store.db, [{ a: 'x', n: 1 }])).toEqual([{ a: 'x', n: 1 }]);
    expect(await rows(store.db, [{ a: 'p', n: 2 }, { a: 'q', n: 3 }])).toEqual([{ a: 'p', n: 2 }, { a: 'q', n: 3 }]);
    expect(await store.db.transaction().execute((trx) => rows(trx, [{ a: 'r', n: 4 }]))).toEqual([{ a: 'r', n: 4 }]);
  });

  it('when a rows statement binds a constant of its own or a row gives too few values, then it throws instead of binding wrongly', async () => {
    const extra = compiledRowsQuery<string, unknown>(1, (a) => [a], (db, given) => ({
      compile: () => sql`select ${given[0]![0]} as a, ${'constant'} as c`.compile(db),
    }));
    await expect(extra(store.db, ['x'])).rejects.toThrow(/not its 1 parameters/);
    const short = compiledRowsQuery<string, unknown>(2, (a) => [a], (db, given) => ({
      compile: () => sql`select ${given[0]![0]} as a, ${given[0]![1]} as b`.compile(db),
    }));
    await expect(short(store.db, ['x'])).rejects.toThrow(/gave 1 values, not 2/);
  });
});
