import type { Kysely, Migration } from 'kysely';

/** GET /vehicle-commands reads an application's commands newest first. */
export const commandHistoryMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('commands_history').on('commands').columns(['application_id', 'created_at', 'id']).execute();
  },
};
