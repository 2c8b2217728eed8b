import type { Kysely, Migration } from 'kysely';

/**
 * Each record's estimated horizontal accuracy, metres (`domain/position-accuracy.ts`), which a
 * geofence exit widens its margin by (D13). Not a datapoint: the interface never shows it. Null
 * for every record stored before, which is what "unknown" means to its reader.
 *
 * On PostgreSQL the column is added to the partitioned parent, which adds it to every partition
 * there is and gives it to those created later (`partition of telemetry`); nullable with no
 * default, it changes the catalogue only, so days of stored telemetry are not rewritten.
 */
export const positionAccuracyMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('telemetry').addColumn('position_accuracy_m', 'double precision').execute();
  },
};
