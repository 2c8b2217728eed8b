import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Webhooks (D12, OPERATIONS.md "Events"):
 * - `webhook_endpoints`: an application's receivers. The signing secret is sealed like
 *   sign-secrets (HMAC needs it in clear, so it cannot be hashed); during a rotation the previous
 *   one is kept until it expires, and both sign. `failing_since` is the first failure of the
 *   current streak without a success (the disable rule); `enabled_at` bounds which events an
 *   endpoint is sent (none from before it was verified).
 * - `webhook_deliveries`: one event to one endpoint, created by the fan-out from the outbox and
 *   sent by whichever instance holds its lease; unique per (endpoint, event), so a fan-out run
 *   twice creates nothing twice. Due ones are found through a partial index.
 * - `webhook_attempts`: the attempt log an application reads (status code or error class,
 *   duration; never the receiver's body).
 * - `event_positions` row `webhooks`: how far the fan-out has read the outbox.
 */
export const webhooksMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createTable('webhook_endpoints')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('application_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('company_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('status', 'varchar(24)', (c) => c.notNull())
      .addColumn('disabled_reason', 'varchar(32)')
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('previous_secret_sealed', 'text')
      .addColumn('previous_secret_expires_at', 'bigint')
      .addColumn('failing_since', 'bigint')
      .addColumn('enabled_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_endpoints_application').on('webhook_endpoints').column('application_id').execute();
    await db.schema.createIndex('webhook_endpoints_company').on('webhook_endpoints').columns(['company_id', 'status']).execute();

    await db.schema.createTable('webhook_deliveries')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('event_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_owner', 'varchar(64)')
      .addColumn('lease_until', 'bigint')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'varchar(200)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_deliveries_once').unique().on('webhook_deliveries').columns(['endpoint_id', 'event_id']).execute();
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').column('next_attempt_at')
      .where(sql.ref('status'), '=', 'pending').execute();
    // A lane's refill reads one endpoint's due deliveries; without this, a backlog is sorted whole.
    await db.schema.createIndex('webhook_deliveries_endpoint_due').on('webhook_deliveries').columns(['endpoint_id', 'next_attempt_at'])
      .where(sql.ref('status'), '=', 'pending').execute();
    await db.schema.createIndex('webhook_deliveries_updated').on('webhook_deliveries').column('updated_at').execute();

    await db.schema.createTable('webhook_attempts')
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('event_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('event_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('trigger', 'varchar(16)', (c) => c.notNull())
      .addColumn('attempted_at', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'varchar(200)')
      .execute();
    await db.schema.createIndex('webhook_attempts_endpoint').on('webhook_attempts').columns(['endpoint_id', 'attempted_at']).execute();

    await db.insertInto('event_positions' as never).values({ name: 'webhooks', last_position: 0 } as never).execute();
  },
};
