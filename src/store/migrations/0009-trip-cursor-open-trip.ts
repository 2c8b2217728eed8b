import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Which trip cursors hold an open trip, as a column: the worker looks for those whose data has
 * stopped, and used to find them by matching the detector's state JSON with LIKE, which tied the
 * query to how JSON.stringify writes that state. `open_trip_last_ts` is the instant of the last
 * record fed while a trip is open, null otherwise; the state text stays the detector's own.
 */
export const tripCursorOpenTripMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('trip_cursors').addColumn('open_trip_last_ts', 'bigint').execute();
    const { rows } = await sql<{ vin: string; state: string }>`select vin, state from trip_cursors`.execute(db);
    for (const row of rows) {
      const state = JSON.parse(row.state) as { lastTs: number | null; trip: unknown };
      if (state.trip === null || state.lastTs === null) continue;
      await sql`update trip_cursors set open_trip_last_ts = ${state.lastTs} where vin = ${row.vin}`.execute(db);
    }
  },
};
