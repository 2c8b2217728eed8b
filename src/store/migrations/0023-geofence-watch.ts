import type { Kysely, Migration } from 'kysely';

/**
 * What the geofence evaluator remembers per vehicle, so that a restart or a shard moving to
 * another process neither repeats nor loses a transition: `watch_cursors`, the instant of the
 * last record judged and that position (the start of a crossing), written in the transaction
 * that records the transitions it led to and their events; `geofence_states`, one row per
 * (vehicle, geofence) whose state is not plain outside (inside, a change pending its dwell, or near it from outside, with the last position that counted as outside, where a crossing would start).
 * A vehicle far from every fence has no state row at all.
 */
export const geofenceWatchMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('watch_cursors')
      .addColumn('vin', 'varchar(17)', (c) => c.primaryKey())
      .addColumn('judged_until', 'bigint', (c) => c.notNull())
      .addColumn('previous_ts', 'bigint')
      .addColumn('previous_latitude', 'double precision')
      .addColumn('previous_longitude', 'double precision')
      .addColumn('previous_accuracy_m', 'double precision')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createTable('geofence_states')
      .addColumn('vin', 'varchar(17)', (c) => c.notNull())
      .addColumn('geofence_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('inside', 'integer', (c) => c.notNull())
      .addColumn('pending_since', 'bigint')
      .addColumn('pending_count', 'integer', (c) => c.notNull())
      .addColumn('outside_latitude', 'double precision')
      .addColumn('outside_longitude', 'double precision')
      .addColumn('outside_accuracy_m', 'double precision')
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('geofence_states_pk', ['vin', 'geofence_id'])
      .execute();
    await db.schema.createIndex('geofence_states_fence').on('geofence_states').columns(['geofence_id']).execute();
  },
};
