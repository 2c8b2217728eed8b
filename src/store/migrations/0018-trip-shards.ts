import type { Kysely, Migration } from 'kysely';

/** How many shards trip detection is split into (vinPartition of the VIN); fixed by this migration. */
export const TRIP_SHARD_COUNT = 64;

/**
 * Trip detection split by VIN among the trip workers of every process: `trip_shards` holds one
 * row per shard with its current owner and lease; `trip_workers` one row per live worker, so a
 * worker knows how many share the work (its fair share) even before it holds a shard.
 */
export const tripShardsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('trip_workers')
      .addColumn('owner', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('alive_until', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createTable('trip_shards')
      .addColumn('shard', 'integer', (c) => c.primaryKey())
      .addColumn('owner', 'varchar(64)')
      .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.insertInto('trip_shards' as never)
      .values(Array.from({ length: TRIP_SHARD_COUNT }, (_, shard) => ({ shard, owner: null, lease_until: 0 })) as never)
      .execute();
  },
};
