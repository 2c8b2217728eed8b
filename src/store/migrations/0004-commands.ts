import type { Kysely, Migration } from 'kysely';

/**
 * Remote commands, which are also the work queue: a `Pending` row with a status URL is polled when
 * `next_poll_at` comes, by the worker holding its lease (`lease_owner` until `lease_until`).
 * A confirmation code is kept only as a keyed hash.
 */
export const commandsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('commands')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('company_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('vin', 'varchar(17)', (c) => c.notNull())
      .addColumn('oem', 'varchar(64)', (c) => c.notNull())
      .addColumn('command', 'varchar(32)', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('code_hash', 'text')
      .addColumn('code_expires_at', 'bigint')
      .addColumn('code_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('code_used_at', 'bigint')
      .addColumn('status_url', 'text')
      .addColumn('deadline_at', 'bigint')
      .addColumn('next_poll_at', 'bigint')
      .addColumn('poll_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'varchar(64)')
      .addColumn('lease_until', 'bigint')
      .execute();
    // Workers look for due Pending commands; step 2 looks up an application's confirmations.
    await db.schema.createIndex('commands_due').on('commands').columns(['status', 'next_poll_at']).execute();
    await db.schema.createIndex('commands_confirmation').on('commands').columns(['application_id', 'vin', 'command', 'status']).execute();
  },
};
