import type { Command } from 'commander';
import { emit } from './output.js';
import { withStore, withStoreOptions } from './store-context.js';
import type { MigrationReport } from '../store/migrate.js';

export function registerMigrate(program: Command): void {
  withStoreOptions(program.command('migrate').description('bring the database schema up to date'))
    .action(async (opts: Record<string, unknown>) => {
      // Opening the store for a command migrates it: what that did is the report.
      await withStore(opts, async ({ store, migrated, output }) => {
        emit(output, { database: store.description, ...migrated }, () => migrationSummary(store.description, migrated));
      }, { create: true });
    });
}

/** One line: what ran (first and last when many) and where the schema is now. */
export function migrationSummary(database: string, { applied, schema }: MigrationReport): string {
  if (applied.length === 0) return `${database}: schema already up to date at ${schema}`;
  const names = applied.length <= 3 ? applied.join(', ') : `${applied[0]} … ${applied[applied.length - 1]}`;
  return `${database}: applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (${names}); schema is at ${schema}`;
}
