import type { Kysely, Migration } from 'kysely';

/**
 * The operator's people: who signs in to the operator console (`/operator/`), set up from the
 * command line, apart from every company's users. Their sessions have their own table, so no
 * company session can ever be taken for an operator's. A password change or removal moves
 * `version` on, which ends the sessions opened before.
 */
export const operatorsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('operators')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('email', 'varchar(254)', (c) => c.notNull().unique())
      .addColumn('password_hash', 'varchar(256)', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createTable('operator_sessions')
      .addColumn('id_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('operator_id', 'varchar(36)', (c) => c.notNull().references('operators.id').onDelete('cascade'))
      .addColumn('operator_version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('operator_sessions_operator').on('operator_sessions').column('operator_id').execute();
  },
};
