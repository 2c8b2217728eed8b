import type { Kysely, Migration } from 'kysely';

/**
 * The scopes an application's credentials carry: `*` (every scope) or scope names
 * separated by spaces (src/domain/scopes.ts). Applications that existed before keep every scope.
 */
export const applicationScopesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('applications').addColumn('scopes', 'text', (c) => c.notNull().defaultTo('*')).execute();
  },
};
