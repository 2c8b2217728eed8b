import { isPostgresUrl, type StoreConnection } from './connection.js';
import { connectPostgres } from './postgres/connect-postgres.js';
import { connectSqlite } from './sqlite/connect-sqlite.js';

/** A `postgres://` URL opens PostgreSQL; anything else is a SQLite file path. */
export function openStore(database: string, options: { poolSize: number }): StoreConnection {
  return isPostgresUrl(database) ? connectPostgres(database, options.poolSize) : connectSqlite(database);
}
