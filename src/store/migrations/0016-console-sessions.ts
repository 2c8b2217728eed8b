import type { Kysely, Migration } from 'kysely';

/**
 * Console sessions live in the store, not in a signed cookie, so that signing out, disabling the
 * application or an operator's purge ends them at once, and every instance on one database shares
 * them. Only the SHA-256 of the 256-bit id is kept: a copy of the table signs no one in.
 */
export const consoleSessionsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('console_sessions')
      .addColumn('id_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('credentials_version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('console_sessions_expiry').on('console_sessions').column('expires_at').execute();
  },
};
