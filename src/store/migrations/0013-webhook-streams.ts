import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Webhook streams: each endpoint reads the outbox through its own position instead of a
 * delivery row per event (a first attempt that succeeds writes no delivery row at all).
 * - `stream_position`: the outbox position through which every event has had its first attempt
 *   for this endpoint (or was not the endpoint's to get); a failed first attempt left a delivery
 *   row for its retries before the position moved past it.
 * - `stream_owner`, `stream_lease_until`: the instance sending the endpoint's first attempts, and
 *   until when; a holder that dies lets the lease lapse and the next takes over from the position
 *   (what was in flight is sent again, with the same `webhook-id`).
 * - `webhook_attempts_event`: whether an endpoint received an event, for recovery (a first attempt
 *   that succeeded is recorded only in the attempt log).
 * Existing endpoints start where the fan-out had read; what it had queued stays queued.
 */
export const webhookStreamsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('webhook_endpoints').addColumn('stream_position', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('stream_owner', 'varchar(80)').execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('stream_lease_until', 'bigint').execute();
    await sql`update webhook_endpoints set stream_position = (select last_position from event_positions where name = 'webhooks')`.execute(db);
    await db.schema.createIndex('webhook_attempts_event').on('webhook_attempts').columns(['endpoint_id', 'event_id']).execute();
    await db.deleteFrom('event_positions' as never).where('name' as never, '=', 'webhooks' as never).execute();
  },
};
