import { Migrator } from 'kysely';
import type { DatabaseConnection } from './connection.js';
import { migrationProvider } from './migrations/index.js';

export interface MigrationReport {
  readonly applied: readonly string[];
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
  return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
