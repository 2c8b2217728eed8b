import { isPostgresUrl, type StoreConnection } from './connection.js';
import { connectPostgres } from './postgres/connect-postgres.js';
import { connectSqlite } from './sqlite/connect-sqlite.js';

export interface StoreOptions {
  readonly poolSize: number;
  /** Watch registry changes so its rows may be cached (for the service, not one-shot CLI commands). */
  readonly watchRegistry?: boolean;
  /** SQLite: checkpoint the WAL in a thread of its own, not on this process's commits (for the service). */
  readonly backgroundCheckpoints?: boolean;
  /** SQLite: `synchronous = NORMAL` (the default) or `FULL` (connect-sqlite.ts). */
  readonly sqliteSynchronous?: 'normal' | 'full';
}

/** A `postgres://` URL opens PostgreSQL; anything else is a SQLite file path. */
export function openStore(database: string, options: StoreOptions): StoreConnection {
  return isPostgresUrl(database)
    ? connectPostgres(database, options.poolSize, options.watchRegistry ?? false)
    : connectSqlite(database, options.watchRegistry ?? false, options.backgroundCheckpoints ?? false, options.sqliteSynchronous ?? 'normal');
}
