import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialect.js';

/**
 * The event outbox (D12) and what it needs:
 * - `events`: one row per event, written in the transaction of the change it reports. `seq` is the
 *   insertion order; `position` is what readers page by, assigned later, under a lock, in commit
 *   order (src/store/event-appends.ts): a serial id alone would let a reader skip a row that a
 *   slow transaction commits after a faster one with a higher id was already read.
 * - `event_positions`: the last position handed out, one row, so positions keep increasing even
 *   when retention has deleted every positioned event.
 * - `vehicle_presence`: whether each vehicle is online, so `vehicle.online`/`offline` are written
 *   once per change.
 */
export function eventsMigration(capabilities: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const bigserial = capabilities.serialKey === 'bigserial';
      await db.schema.createTable('events')
        .addColumn('seq', bigserial ? 'bigserial' : 'integer', (c) => (bigserial ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('id', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('position', 'bigint', (c) => c.unique())
        .addColumn('type', 'varchar(32)', (c) => c.notNull())
        .addColumn('vin', 'varchar(17)', (c) => c.notNull())
        .addColumn('company_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('application_id', 'varchar(36)')
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      // The sequencer looks for rows without a position, oldest first; retention by age.
      await db.schema.createIndex('events_unpositioned').on('events').column('seq').where(sql.ref('position'), 'is', null).execute();
      await db.schema.createIndex('events_created').on('events').column('created_at').execute();

      await db.schema.createTable('event_positions')
        .addColumn('name', 'varchar(16)', (c) => c.primaryKey())
        .addColumn('last_position', 'bigint', (c) => c.notNull())
        .execute();
      await db.insertInto('event_positions' as never).values({ name: 'events', last_position: 0 } as never).execute();

      await db.schema.createTable('vehicle_presence')
        .addColumn('vin', 'varchar(17)', (c) => c.primaryKey())
        .addColumn('online', 'integer', (c) => c.notNull())
        .addColumn('last_seen', 'bigint')
        .addColumn('changed_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
