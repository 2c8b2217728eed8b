import type { Command } from 'commander';
import { emit } from './output.js';
import { withStore, withStoreOptions } from './store-context.js';
import { migrateToLatest } from '../store/migrate.js';

export function registerMigrate(program: Command): void {
  withStoreOptions(program.command('migrate').description('bring the database schema up to date'))
    .action(async (opts: Record<string, unknown>) => {
      await withStore(opts, async ({ store, output }) => {
        const { applied } = await migrateToLatest(store);
        emit(output, { database: store.description, applied }, () =>
          `${store.description}: schema up to date${applied.length ? ` (applied ${applied.join(', ')})` : ''}`);
      }, { create: true });
    });
}
