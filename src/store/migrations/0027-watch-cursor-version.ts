import type { Kysely, Migration } from 'kysely';

/**
 * A version on each vehicle's watch cursor, raised by every write of the vehicle's watch state:
 * the evaluator's (with the cursor), the no_data sweep's and a rule's or fence's change (which
 * re-base the states it computed). A process keeps a vehicle's state between passes while the
 * version is the one it wrote, and each writer's guard compares it, so a write by anyone else
 * makes the kept copy stale and a judgement started before it is dropped, not saved over it.
 */
export const watchCursorVersionMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('watch_cursors').addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  },
};
