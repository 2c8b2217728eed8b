import type { Db } from './schema.js';
import type { DialectCapabilities } from './dialect.js';
import type { GroupCommit } from './group-commit.js';
import type { RegistryCacheTables } from './registry-cache-tables.js';
import type { RegistryChanges } from './registry-changes.js';

// Defined beside the tables, so that what a StoreConnection holds can name it without importing this file.
export type { Db };

/** An open database, as a dialect's connect function returns it. */
export interface DatabaseConnection {
  readonly db: Db;
  readonly capabilities: DialectCapabilities;
  /** Where the data lives, safe to log (no password). */
  readonly description: string;
  /** How registry changes are seen, when watched (`watchRegistry`); absent, nothing is cached. */
  readonly registryChanges?: RegistryChanges;
  /** SQLite: `PRAGMA synchronous` as the connection reads it back (`normal`, `full`), for the startup log. */
  readonly sqliteSynchronous?: string;
  close(): Promise<void>;
}

/**
 * An open database with the state this process keeps for it, made with it in `openStore` and
 * never shared with another connection: what every store function takes.
 */
export interface StoreConnection extends DatabaseConnection {
  /** The group commit of small writes (write-batcher.ts). */
  readonly groupCommit: GroupCommit;
  /** Registry rows read on the request path (registry-cache.ts). */
  readonly registryCache: RegistryCacheTables;
  /** Days (since epoch, UTC) whose telemetry partition this connection knows exists (telemetry/partitions.ts). */
  readonly telemetryPartitions: Set<number>;
}
