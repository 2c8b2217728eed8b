import type { Kysely, Migration } from 'kysely';

/**
 * What the in-process simulated automaker keeps across restarts of the service (`serve --sim`):
 * named values, today only the port its cloud listens on, so the status URLs it handed out keep
 * their origin as a real automaker's would.
 */
export const simulationStateMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('simulation_state')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
