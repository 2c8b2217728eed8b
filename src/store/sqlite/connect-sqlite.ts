import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../schema.js';
import { sqliteCapabilities } from '../dialect.js';
import type { StoreConnection } from '../connection.js';
import { withStatementCache } from './statement-cache.js';

/**
 * Opens (creating if needed) a SQLite file in WAL mode: readers never wait for the writer, and
 * `busy_timeout` lets a CLI command and the running service share the file.
 */
export function connectSqlite(file: string): StoreConnection {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return {
    db,
    capabilities: sqliteCapabilities,
    description: `sqlite:${file}`,
    close: () => db.destroy(),
  };
}
