import type { Kysely, Migration } from 'kysely';

/**
 * A company's people (src/domain/roles.ts). E-mails are kept lower-cased and are unique across
 * the service, so a sign-in needs no company. A user without a password hash has not yet taken
 * up an invitation (or was reset); `version` moves on with every change that must end the
 * user's sessions (password set or reset, role). TOTP secrets are sealed, recovery
 * codes kept as keyed hashes. A set-password link (an invitation or a reset) is kept as the
 * SHA-256 of its token. A console session may belong to a user: `user_id` and the user's version.
 */
export const usersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('users')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('company_id', 'varchar(64)', (c) => c.notNull().references('companies.id'))
      .addColumn('email', 'varchar(254)', (c) => c.notNull().unique())
      .addColumn('role', 'varchar(16)', (c) => c.notNull())
      .addColumn('password_hash', 'text')
      .addColumn('totp_sealed', 'text')
      .addColumn('totp_pending_sealed', 'text')
      .addColumn('totp_last_step', 'bigint')
      .addColumn('recovery_hashes', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('users_company').on('users').columns(['company_id', 'email']).execute();
    await db.schema.createTable('password_links')
      .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('password_links_user').on('password_links').column('user_id').execute();
    await db.schema.alterTable('console_sessions').addColumn('user_id', 'varchar(36)').execute();
    await db.schema.alterTable('console_sessions').addColumn('user_version', 'integer').execute();
  },
};
