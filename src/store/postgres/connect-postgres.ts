import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.js';
import { postgresCapabilities } from '../dialect.js';
import type { StoreConnection } from '../connection.js';
import { withPreparedStatements } from './prepared-statements.js';
import { listenForRegistryChanges } from './listen-registry-changes.js';
import { RegistryChanges, registryWritesPlugin } from '../registry-changes.js';

const INT8_OID = 20;

/**
 * A pg pool for Kysely. int8 columns hold epoch milliseconds, which fit a double exactly until the
 * year 287396, so they are parsed as numbers for this pool only (not pg's global type table).
 */
export function connectPostgres(url: string, poolSize: number, watchRegistry = false): StoreConnection {
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types, connectionTimeoutMillis: 5000 });
  // A client losing its connection (database restart, failover, network) must not crash the
  // process. Idle clients report through the pool's 'error'; a client checked out (a transaction
  // between two queries) emits on itself, with no listener unless one is attached here. Either
  // way the query in flight fails (503), and the pool drops the broken client on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => { client.on('error', () => {}); });
  const registryChanges = watchRegistry ? new RegistryChanges() : undefined;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }),
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
