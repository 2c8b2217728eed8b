import type { Kysely, Migration } from 'kysely';

/**
 * Trips, and one detection cursor per VIN: how far its records have been fed to the detector, the
 * detector's state at that point (an open trip survives restarts), and the earliest instant of a
 * record that arrived after the cursor had passed it (detection rewinds to there).
 */
export const tripsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    let trips = db.schema.createTable('trips')
      .addColumn('vin', 'varchar(17)', (c) => c.notNull())
      .addColumn('start_ts', 'bigint', (c) => c.notNull())
      .addColumn('end_ts', 'bigint', (c) => c.notNull())
      .addColumn('duration_s', 'integer', (c) => c.notNull())
      .addColumn('distance_km', 'double precision', (c) => c.notNull())
      .addColumn('avg_speed', 'double precision', (c) => c.notNull())
      .addColumn('max_speed', 'double precision', (c) => c.notNull());
    for (const column of ['start_odometer', 'end_odometer', 'avg_fuel_consumption', 'start_latitude', 'start_longitude', 'end_latitude', 'end_longitude']) {
      trips = trips.addColumn(column, 'double precision');
    }
    await trips.addColumn('created_at', 'bigint', (c) => c.notNull()).addPrimaryKeyConstraint('trips_pk', ['vin', 'start_ts']).execute();
    // POST /vehicle-trips selects a VIN's trips overlapping a period.
    await db.schema.createIndex('trips_vin_end').on('trips').columns(['vin', 'end_ts']).execute();

    await db.schema.createTable('trip_cursors')
      .addColumn('vin', 'varchar(17)', (c) => c.primaryKey())
      .addColumn('processed_until', 'bigint', (c) => c.notNull())
      .addColumn('rewind_from', 'bigint')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
