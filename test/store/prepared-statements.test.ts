import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPreparedStatements } from '../../src/store/postgres/prepared-statements.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

/** A text of 41 parameters, one over the default bound. */
const SUM_OF_41 = `select ${Array.from({ length: 41 }, (_, i) => `$${i + 1}::int`).join(' + ')} as n`;

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL prepared statements', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  /** Runs on the pool's only connection, so pg_prepared_statements shows that session's statements. */
  async function session(
    work: (client: Awaited<ReturnType<ReturnType<typeof withPreparedStatements>['connect']>>) => Promise<void>,
    options: Parameters<typeof withPreparedStatements>[1] = { maxNames: 3, maxParameters: 4 },
  ) {
    const client = await withPreparedStatements(pool, options).connect();
    try {
      await work(client);
      const { rows } = await client.query<{ statement: string }>('select statement from pg_prepared_statements', []);
      return rows.map((r) => r.statement);
    } finally {
      client.release();
    }
  }

  it('when a query text comes back, then it runs as a named statement from its second use, with each call binding its own values', async () => {
    const results: unknown[] = [];
    const prepared = await session(async (c) => {
      for (const n of [1, 2, 3]) results.push((await c.query<{ n: number }>('select $1::int + 1 as n', [n])).rows[0]!.n);
    });
    expect(results).toEqual([2, 3, 4]);
    expect(prepared).toContain('select $1::int + 1 as n');
  });

  it('when a statement is DDL or has many parameters, then it is never named', async () => {
    const prepared = await session(async (c) => {
      for (let i = 0; i < 3; i += 1) {
        await c.query('create table if not exists t_ddl (n int)', []);
        await c.query('select $1::int + $2::int + $3::int + $4::int + $5::int as n', [1, 2, 3, 4, 5]);
      }
    });
    expect(prepared.some((s) => s.includes('t_ddl'))).toBe(false);
    expect(prepared.some((s) => s.includes('$5'))).toBe(false);
  });

  it('when a text is a row statement, then it is named at its first use whatever its parameter count, and other texts past the bound stay unnamed', async () => {
    const rows = Array.from({ length: 4 }, (_, r) => `(${Array.from({ length: 13 }, (__, c) => `$${r * 13 + c + 1}::int`).join(', ')})`);
    const rowText = `select count(*)::int as n from (values ${rows.join(', ')}) as given`;
    const prepared = await session(async (c) => {
      // The budget for other texts spent first: row statements do not count against it.
      for (const filler of ['select 1 as a', 'select 2 as a', 'select 3 as a']) for (let i = 0; i < 2; i += 1) await c.query(filler, []);
      expect((await c.query<{ n: number }>(rowText, Array.from({ length: 52 }, (_, i) => i))).rows[0]!.n).toBe(4);
      for (let i = 0; i < 2; i += 1) await c.query(SUM_OF_41, Array.from({ length: 41 }, () => 1));
    }, { maxNames: 3, rowStatements: new Set([rowText]) });
    expect(prepared).toContain(rowText);
    expect(prepared).not.toContain(SUM_OF_41);
  });

  it('when a text of 41 parameters recurs with the default bounds, then it is not named', async () => {
    const prepared = await session(async (c) => {
      for (let i = 0; i < 3; i += 1) expect((await c.query<{ n: number }>(SUM_OF_41, Array.from({ length: 41 }, () => 1))).rows[0]!.n).toBe(41);
    }, {});
    expect(prepared).not.toContain(SUM_OF_41);
  });

  it('when many texts were each seen only once, then a text that recurs after them is still named', async () => {
    const recurring = 'select 99 as late';
    const prepared = await session(async (c) => {
      // maxNames 3: at most 30 texts are remembered as seen once.
      for (let i = 0; i < 31; i += 1) await c.query(`select ${i} as once`, []);
      for (let i = 0; i < 2; i += 1) await c.query(recurring, []);
    });
    expect(prepared).toContain(recurring);
  });

  it('when more distinct texts recur than the bound, then the extra ones simply run unnamed', async () => {
    const texts = ['select 10 as a', 'select 11 as a', 'select 12 as a', 'select 13 as a', 'select 14 as a'];
    const prepared = await session(async (c) => {
      for (let round = 0; round < 2; round += 1) for (const t of texts) expect((await c.query(t, [])).rows).toHaveLength(1);
    });
    expect(texts.filter((t) => prepared.includes(t)).length).toBeLessThanOrEqual(3);
  });

  it('when the same pooled connection is checked out again, then the same client object comes back (Kysely keeps one connection object per client, not one per statement)', async () => {
    const prepared = withPreparedStatements(pool);
    const first = await prepared.connect();
    first.release();
    const second = await prepared.connect();
    second.release();
    expect(second).toBe(first);
  });
});
