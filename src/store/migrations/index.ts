import type { Migration, MigrationProvider } from 'kysely';
import { registryMigration } from './0001-registry.js';

/**
 * Every migration, in order. Migrations are forward-only: once landed, a migration is never
 * edited; a change is a new entry.
 */
export const migrations: Readonly<Record<string, Migration>> = Object.freeze({
  '0001-registry': registryMigration,
});

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...migrations }),
};
