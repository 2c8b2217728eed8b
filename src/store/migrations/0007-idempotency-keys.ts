import type { Kysely, Migration } from 'kysely';

/**
 * Idempotency keys of POST /vehicle-command, per application: the request's fingerprint and,
 * once answered, the response (status and body, sealed under the master key: a Confirmation
 * response carries the code). `status_code` null means the first request is still running.
 * Kept 24 h; the index serves the hourly sweep.
 */
export const idempotencyKeysMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('idempotency_keys')
      .addColumn('application_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('key', 'varchar(255)', (c) => c.notNull())
      .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('response', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['application_id', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
  },
};
