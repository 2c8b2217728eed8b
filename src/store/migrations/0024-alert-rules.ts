import type { Kysely, Migration } from 'kysely';

/**
 * Alert rules (D13): `alert_rules`, a company's rules as its applications wrote them (the VINs
 * and the schedule as JSON text; null VINs watch every vehicle of the company), listed by name;
 * `alert_rule_revisions`, one counter per company moved in the transaction of every change to
 * its rules, so an evaluator keeping the rules in memory reloads a company's only when its
 * counter has moved, with one small read per pass.
 */
export const alertRulesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('alert_rules')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('company_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'varchar(16)', (c) => c.notNull())
      .addColumn('vins', 'text')
      .addColumn('threshold', 'double precision')
      .addColumn('duration_s', 'integer', (c) => c.notNull())
      .addColumn('schedule', 'text')
      .addColumn('cooldown_s', 'integer', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('alert_rules_company').on('alert_rules').columns(['company_id', 'name', 'id']).execute();
    await db.schema.createTable('alert_rule_revisions')
      .addColumn('company_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('revision', 'bigint', (c) => c.notNull())
      .execute();
  },
};
