import type { Kysely, Migration } from 'kysely';

/**
 * When a no_data silence held back by its rule's cooldown or schedule may fire
 * (`alert_states.due_at`, domain/alerts/judge-alert.ts `silenceDueAt`): the sweep reads the rows
 * of a rule that are due, by the index, so such a vehicle is judged again when it may fire instead
 * of never, and without rescanning every silent vehicle every sweep. Null on every other row.
 */
export const silenceDueMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('alert_states').addColumn('due_at', 'bigint').execute();
    await db.schema.createIndex('alert_states_due').on('alert_states').columns(['rule_id', 'due_at']).execute();
  },
};
