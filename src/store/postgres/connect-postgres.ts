import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.js';
import { postgresCapabilities } from '../dialect.js';
import type { DatabaseConnection } from '../connection.js';
import { rowStatementTexts } from '../compiled-query.js';
import { withPreparedStatements } from './prepared-statements.js';
import { listenForRegistryChanges } from './listen-registry-changes.js';
import { RegistryChanges, registryWritesPlugin } from '../registry-changes.js';

const INT8_OID = 20;

/**
 * Set for every session (an `options` parameter in the URL replaces them):
 * - READ COMMITTED, whatever the server's default: an event append that waited for the position
 *   counter re-reads it after the holder commits (store/event-appends.ts); under REPEATABLE READ
 *   or SERIALIZABLE it would fail instead.
 * - A transaction left idle for a minute is ended by the server. This service never waits on
 *   anything outside the database inside a transaction, so only a process paused or cut off
 *   mid-transaction gets there, and one holding the position counter would otherwise stop every
 *   instance's appends until its connection was found dead (hours, with TCP defaults). Keep-alive
 *   probes find a silently dropped connection sooner.
 */
const SESSION_OPTIONS = '-c default_transaction_isolation=read\\ committed -c idle_in_transaction_session_timeout=60000';

/**
 * How long a pooled connection serves before it is replaced (once it is released). A prepared
 * statement's plan is kept by its connection, and PostgreSQL may settle on a generic plan after
 * five runs; it plans again when the table's statistics or definition change (ANALYZE, VACUUM,
 * DDL), not because the table grew. A plan made while a table was nearly empty can scan the whole
 * table: found with autovacuum off (docs/decisions/0029), where a status URL update of a few rows, planned
 * on an empty `commands`, read all 46,000 commands (144 ms) on every run, and more as the table
 * grew. Autovacuum's ANALYZE also replaces such plans; without it, they last until the connection
 * does: a minute at most, and plans made on a grown table stay right as it grows. A replacement
 * costs a connection and each named statement's parse again, at most once a minute per pooled
 * connection. Behind a transaction-pooling PgBouncer the plans live on its server connections,
 * which its `server_lifetime` bounds instead.
 */
export const CONNECTION_LIFETIME_SECONDS = 60;

export interface PostgresPoolOptions {
  /** Seconds a pooled connection serves before it is replaced; 0: never replaced (tests). */
  readonly connectionLifetimeSeconds?: number;
}

/**
 * A pg pool for Kysely. int8 columns hold epoch milliseconds, which fit a double exactly until the
 * year 287396, so they are parsed as numbers for this pool only (not pg's global type table).
 */
export function connectPostgres(url: string, poolSize: number, watchRegistry = false, options: PostgresPoolOptions = {}): DatabaseConnection {
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: url, max: poolSize, types, connectionTimeoutMillis: 5000, keepAlive: true, options: SESSION_OPTIONS,
    maxLifetimeSeconds: options.connectionLifetimeSeconds ?? CONNECTION_LIFETIME_SECONDS,
  });
  // A client losing its connection (database restart, failover, network) must not crash the
  // process. Idle clients report through the pool's 'error'; a client checked out (a transaction
  // between two queries) emits on itself, with no listener unless one is attached here. Either
  // way the query in flight fails (503), and the pool drops the broken client on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => { client.on('error', () => {}); });
  const registryChanges = watchRegistry ? new RegistryChanges() : undefined;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: withPreparedStatements(pool, { rowStatements: rowStatementTexts }) }),
    plugins: registryChanges ? [registryWritesPlugin(registryChanges)] : [],
  });
  const listener = registryChanges ? listenForRegistryChanges(url, registryChanges) : undefined;
  return {
    db,
    capabilities: postgresCapabilities,
    description: `postgres:${redactUrl(url)}`,
    ...(registryChanges ? { registryChanges } : {}),
    close: async () => {
      await listener?.stop();
      await db.destroy();
    },
  };
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
