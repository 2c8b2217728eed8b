import { Migrator } from 'kysely';
import type { DatabaseConnection } from './connection.js';
import { migrationProvider, migrationsFor } from './migrations/index.js';

export interface MigrationReport {
  /** The migrations this call ran, in order (none when the schema was up to date already). */
  readonly applied: readonly string[];
  /** The newest migration, which the schema is now at. */
  readonly schema: string;
}

/** Brings the schema up to date. Safe to run from several processes at once (Kysely takes a lock). */
export async function migrateToLatest(store: DatabaseConnection): Promise<MigrationReport> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.capabilities) });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((r) => r.status === 'Error');
  if (error || failed) {
    const cause = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${cause}`.replace('  ', ' '), { cause: error });
  }
  const names = Object.keys(migrationsFor(store.capabilities));
  return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName), schema: names[names.length - 1]! };
}
