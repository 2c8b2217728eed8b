import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { DialectCapabilities } from './dialect.js';
import type { RegistryChanges } from './registry-changes.js';

export type Db = Kysely<Database>;

export interface StoreConnection {
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

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
