import type { Kysely, Migration } from 'kysely';

/**
 * Share links: one vehicle's position for someone without an account, until `expires_at` or
 * until revoked. Only the SHA-256 of the link's secret is kept. Ids are time-ordered, so a
 * company's links page newest first by id.
 */
export const shareLinksMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('share_links')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('company_id', 'varchar(64)', (c) => c.notNull().references('companies.id'))
      .addColumn('vin', 'varchar(17)', (c) => c.notNull())
      .addColumn('label', 'varchar(80)')
      .addColumn('created_by_kind', 'varchar(16)', (c) => c.notNull())
      .addColumn('created_by_id', 'varchar(254)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('share_links_company').on('share_links').columns(['company_id', 'id']).execute();
    await db.schema.createIndex('share_links_vin').on('share_links').columns(['vin', 'expires_at']).execute();
  },
};
