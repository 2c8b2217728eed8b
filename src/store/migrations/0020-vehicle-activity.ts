import { sql, type Kysely, type Migration } from 'kysely';

/**
 * What the followers of the store (trip detection, presence, and the geofence evaluator after
 * them) read to learn which vehicles changed, instead of visiting every registered vehicle:
 * `vehicle_activity` holds one row per vehicle that has ever reported, written by the statement
 * that stores its records (store/telemetry/insert.ts): the instant of its newest record
 * (`last_seen`) and when records of it were last stored (`changed_at`, the storing process's
 * clock). A follower asks for the rows changed since it last looked (`changed_at`), presence for
 * the vehicles whose newest record crossed its offline threshold (`last_seen`); an idle fleet then
 * costs one index range a pass, whatever its size.
 *
 * Filled here from the telemetry already stored (one index probe per vehicle), with
 * `changed_at` 0: every follower's first look reads every row anyway. Trip cursors holding an
 * open trip get a partial index, so the trip worker finds the trips time alone closes without a
 * scan of every cursor.
 */
export const vehicleActivityMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('vehicle_activity')
      .addColumn('vin', 'varchar(17)', (c) => c.primaryKey())
      .addColumn('last_seen', 'bigint', (c) => c.notNull())
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('vehicle_activity_changed').on('vehicle_activity').columns(['changed_at', 'vin']).execute();
    await db.schema.createIndex('vehicle_activity_last_seen').on('vehicle_activity').columns(['last_seen', 'vin']).execute();
    await db.schema.createIndex('trip_cursors_open_trip').on('trip_cursors').column('open_trip_last_ts')
      .where(sql.ref('open_trip_last_ts'), 'is not', null).execute();
    await db.schema.createIndex('vehicle_presence_online').on('vehicle_presence').column('vin')
      .where(sql.ref('online'), '=', sql.lit(1)).execute();
    await sql`
      insert into vehicle_activity (vin, last_seen, changed_at)
      select vin, last_seen, 0 from (
        select v.vin as vin, (select max(t.ts) from telemetry t where t.vin = v.vin) as last_seen from vehicles v
      ) as newest where last_seen is not null`.execute(db);
  },
};
