import type { Kysely, Migration } from 'kysely';

/** The registry: plans, OEMs, companies, applications, vehicles. */
export const registryMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('plans')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('datapoints', 'text', (c) => c.notNull())
      .addColumn('commands', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('oems')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('connector', 'varchar(16)', (c) => c.notNull())
      .addColumn('base_url', 'text')
      .addColumn('ingest_key_hash', 'text')
      .addColumn('datapoints', 'text', (c) => c.notNull())
      .addColumn('commands', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('companies')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(128)', (c) => c.notNull())
      .addColumn('plan', 'varchar(64)', (c) => c.notNull().references('plans.name'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('applications')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('company_id', 'varchar(64)', (c) => c.notNull().references('companies.id'))
      .addColumn('name', 'varchar(64)', (c) => c.notNull())
      .addColumn('client_id', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('client_secret_hash', 'text', (c) => c.notNull())
      .addColumn('sign_secret_sealed', 'text')
      .addColumn('token_lifetime', 'integer', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('credentials_version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('applications_company_name_unique', ['company_id', 'name'])
      .execute();

    await db.schema
      .createTable('vehicles')
      .addColumn('vin', 'varchar(17)', (c) => c.primaryKey())
      .addColumn('company_id', 'varchar(64)', (c) => c.notNull().references('companies.id'))
      .addColumn('plate', 'varchar(16)', (c) => c.notNull())
      .addColumn('oem', 'varchar(64)', (c) => c.notNull().references('oems.name'))
      .addColumn('model', 'varchar(64)', (c) => c.notNull())
      .addColumn('year', 'integer', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('ownership', 'varchar(16)', (c) => c.notNull())
      .addColumn('fuel_capacity', 'double precision')
      .addColumn('sim', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    // GET /vehicle lists a company's vehicles ordered by VIN.
    await db.schema.createIndex('vehicles_company_vin').on('vehicles').columns(['company_id', 'vin']).execute();
    await db.schema.createIndex('vehicles_oem').on('vehicles').column('oem').execute();
  },
};
