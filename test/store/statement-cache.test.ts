import { describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { withStatementCache } from '../../src/store/sqlite/statement-cache.js';

function database() {
  const db = new BetterSqlite3(':memory:');
  db.exec('create table t (n integer)');
  for (let n = 0; n < 5; n += 1) db.prepare('insert into t values (?)').run(n);
  return db;
}

describe('SQLite statement cache', () => {
  it('when the same text is prepared twice, then the same statement is reused', () => {
    const cached = withStatementCache(database());
    expect(cached.prepare('select n from t')).toBe(cached.prepare('select n from t'));
  });

  it('when a statement is still iterating, then a second prepare gets a fresh one and both read correctly', () => {
    const cached = withStatementCache(database());
    const first = cached.prepare('select n from t order by n') as unknown as BetterSqlite3.Statement;
    const iterator = first.iterate();
    expect(iterator.next().value).toEqual({ n: 0 });
    const second = cached.prepare('select n from t order by n') as unknown as BetterSqlite3.Statement;
    expect(second).not.toBe(first);
    expect(second.all()).toHaveLength(5);
    expect([...iterator]).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
  });

  it('when more texts are prepared than the bound, then the oldest is dropped and re-prepared on demand', () => {
    const cached = withStatementCache(database(), 2);
    const a = cached.prepare('select 1');
    cached.prepare('select 2');
    cached.prepare('select 3');
    expect(cached.prepare('select 1')).not.toBe(a);
  });
});
