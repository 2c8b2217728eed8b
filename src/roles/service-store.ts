/** The service's database: opened with the configured options, then migrated to the latest schema. */
import type { Logger } from 'pino';
import type { ServiceConfig } from '../config/settings.js';
import { unreachableMessage } from '../store/classify-error.js';
import type { StoreConnection } from '../store/connection.js';
import { migrateToLatest } from '../store/migrate.js';
import { openStore } from '../store/open-store.js';
import { describeRoles } from '../workers/roles.js';

export function openServiceStore(config: ServiceConfig): StoreConnection {
  return openStore(config.database, {
    poolSize: config.databasePoolSize, watchRegistry: true, backgroundCheckpoints: true, sqliteSynchronous: config.sqliteSynchronous,
  });
}

/** Migrates, naming an unreachable database in one line rather than a driver's stack. */
export async function migrateServiceStore(store: StoreConnection, config: ServiceConfig, logger: Logger): Promise<void> {
  const { applied } = await migrateToLatest(store).catch((error: unknown) => {
    const message = unreachableMessage(error, store.description);
    throw message === undefined ? error : new Error(message);
  });
  // What a SQLite commit survives, as the connection reads it back (README, "What a commit survives").
  const synchronous = store.sqliteSynchronous === undefined ? {} : { synchronous: store.sqliteSynchronous };
  logger.info({ database: store.description, applied, role: describeRoles(config.role), ...synchronous }, 'database ready');
}
