import type { Kysely, Migration } from 'kysely';

/**
 * What the evaluator remembers per (vehicle, alert rule): the rule's state for that vehicle (its
 * episode, whether it fired, the cooldown's start), as the JSON the pure judge round-trips
 * (domain/alerts/judge-alert.ts). Only states that hold something have a row. Written in the
 * transaction of the watch cursor and the events they lead to, like the geofence states.
 */
export const alertStatesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('alert_states')
      .addColumn('vin', 'varchar(17)', (c) => c.notNull())
      .addColumn('rule_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('alert_states_pk', ['vin', 'rule_id'])
      .execute();
    await db.schema.createIndex('alert_states_rule').on('alert_states').columns(['rule_id']).execute();
  },
};
