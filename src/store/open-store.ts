import { isPostgresUrl } from '../domain/database-url.js';
import type { DatabaseConnection, StoreConnection } from './connection.js';
import { GroupCommit } from './group-commit.js';
import { connectPostgres } from './postgres/connect-postgres.js';
import { RegistryCacheTables } from './registry-cache-tables.js';
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
  return withStoreState(isPostgresUrl(database)
    ? connectPostgres(database, options.poolSize, options.watchRegistry ?? false)
    : connectSqlite(database, options.watchRegistry ?? false, options.backgroundCheckpoints ?? false, options.sqliteSynchronous ?? 'normal'));
}

/**
 * `connection` with the state a store keeps beside it, all of it new: its own group commit over
 * `connection.db`, an empty registry cache, no telemetry partition known yet.
 */
export function withStoreState(connection: DatabaseConnection): StoreConnection {
  return {
    ...connection,
    groupCommit: new GroupCommit(connection.db, connection.capabilities.concurrentWriters),
    registryCache: new RegistryCacheTables(),
    telemetryPartitions: new Set(),
  };
}
