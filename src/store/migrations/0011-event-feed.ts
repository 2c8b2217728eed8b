import type { Kysely, Migration } from 'kysely';

/**
 * What the event feed (GET /events) reads by:
 * - `events_company_position`: a company's events in position order, the feed's scan.
 * - `event_positions` row `pruned`: the highest position retention has dropped, so a cursor from
 *   before it is answered 410 (its reader would miss events) rather than silently skipping.
 */
export const eventFeedMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('events_company_position').on('events').columns(['company_id', 'position']).execute();
    await db.insertInto('event_positions' as never).values({ name: 'pruned', last_position: 0 } as never).execute();
  },
};
