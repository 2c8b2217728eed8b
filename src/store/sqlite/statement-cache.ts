/**
 * Kysely's SQLite driver prepares every query it runs; preparing costs more than running the
 * small indexed queries of the request path. This hands Kysely the same prepared statement for
 * the same SQL text (and makes its transactions immediate, below). A statement still iterating (a stream) is never handed out twice: a fresh
 * one is prepared instead. Bounded, because texts such as `in (?, ?, …)` vary with their input.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function withStatementCache(db: BetterSqlite3.Database, maxStatements = 256): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      statements.clear();
      db.close();
    },
    prepare(text: string): SqliteStatement {
      // Kysely begins transactions with a deferred `begin`: one that reads, then writes after
      // another connection (the CLI beside the service) committed, fails at once with
      // SQLITE_BUSY (its snapshot is stale), without waiting for busy_timeout. Taking the write
      // lock at `begin` makes such a transaction wait its turn instead.
      const sql = text === 'begin' ? 'begin immediate' : text;
      let statement = statements.get(sql);
      if (statement === undefined || statement.busy) {
        statement = db.prepare(sql);
        if (statements.size >= maxStatements && !statements.has(sql)) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
        statements.set(sql, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}
