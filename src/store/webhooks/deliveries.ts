/**
 * Webhook delivery rows (migration 0012): one exists only for what needs another attempt (a
 * failed first attempt, a recovery). A row is claimed by a conditional update, so two instances
 * never both hold one; a lease that lapses (its holder died) makes it due again, and the event is
 * sent again with the same id (at least once).
 */
import type { ExpressionBuilder, Insertable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../connection.js';
import type { Database, WebhookDeliveriesTable } from '../schema.js';
import { equalsNotFromPartialIndex } from '../not-from-partial-index.js';

/**
 * `status = 'pending'` written as a literal, not a parameter: the partial indexes on pending
 * deliveries are only usable when the planner can see the query asks for what they hold.
 */
const PENDING = sql.lit('pending');
/** The same check for statements that find deliveries by id, answered by the key (not-from-partial-index.ts). */
const stillPending = equalsNotFromPartialIndex('webhook_deliveries.status', 'pending');

/** Queues events for endpoints; one already queued for an endpoint is left as it is. */
export async function insertDeliveries(db: Db, rows: readonly Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('webhook_deliveries').values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing()).execute();
  }
}

/**
 * Pending, due at `now`, held by nobody (or its lease lapsed), and not for an endpoint of a
 * disabled application: those wait, and fall due when it is enabled again. One uncorrelated
 * subquery, the few endpoints of disabled applications, looked at once per statement.
 */
export const dueAt = (now: number) => (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) => eb.and([
  eb('status', '=', PENDING), eb('next_attempt_at', '<=', now), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
  eb('endpoint_id', 'not in', eb.selectFrom('webhook_endpoints').innerJoin('applications', 'applications.id', 'webhook_endpoints.application_id')
    .select('webhook_endpoints.id').where('applications.enabled', '!=', 1)),
]);

/** A due delivery with what sending it needs. */
export interface DueDelivery {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly attempts: number;
}

/** Which due deliveries to look at: one endpoint's, or all but the busy endpoints'. */
export type DueScope = { readonly endpointId: string } | { readonly busyEndpoints: readonly string[] };

/**
 * Pending deliveries due now whose lease (if any) has lapsed, oldest due first: one endpoint's,
 * or every endpoint's but those with no free slot (so one endpoint's backlog cannot fill every
 * batch).
 */
export async function dueDeliveries(db: Db, now: number, limit: number, scope: DueScope): Promise<DueDelivery[]> {
  let query = db.selectFrom('webhook_deliveries').select(['id', 'endpoint_id', 'event_id', 'attempts']).where(dueAt(now));
  if ('endpointId' in scope) query = query.where('endpoint_id', '=', scope.endpointId);
  else if (scope.busyEndpoints.length > 0) query = query.where('endpoint_id', 'not in', scope.busyEndpoints);
  const rows = await query.orderBy('next_attempt_at').limit(limit).execute();
  return rows.map((r) => ({ id: r.id, endpointId: r.endpoint_id, eventId: r.event_id, attempts: Number(r.attempts) }));
}

/**
 * Takes the leases of these deliveries (one endpoint's, found due) where nobody holds them;
 * answers the ids this owner won. One statement for a batch: the conditional update is the
 * arbiter, so two instances claiming the same rows split them.
 */
export async function claimDeliveries(db: Db, ids: readonly string[], owner: string, now: number, leaseUntil: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.updateTable('webhook_deliveries').set({ lease_owner: owner, lease_until: leaseUntil, updated_at: now })
    .where('id', 'in', ids).where(stillPending)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returning('id').execute();
  return new Set(rows.map((r) => r.id));
}

/** What one attempt's end makes of its delivery. */
export type DeliverySettlement = Pick<Updateable<WebhookDeliveriesTable>, 'status' | 'attempts' | 'next_attempt_at' | 'last_status' | 'last_error'> & { readonly id: string };

/**
 * Settles many deliveries held by `owner`: the successes in one statement per status code
 * (`attempts + 1` is exact, the holder being the only writer), anything else row by row (rare).
 */
export async function settleDeliveries(db: Db, owner: string, succeeded: ReadonlyMap<number, readonly string[]>, others: readonly DeliverySettlement[], now: number): Promise<void> {
  for (const [status, ids] of succeeded) {
    for (let i = 0; i < ids.length; i += 500) {
      await db.updateTable('webhook_deliveries')
        .set((eb) => ({ status: 'succeeded', attempts: eb('attempts', '+', 1), next_attempt_at: now, last_status: status, last_error: null, lease_owner: null, lease_until: null, updated_at: now }))
        .where('id', 'in', ids.slice(i, i + 500)).where('lease_owner', '=', owner).execute();
    }
  }
  for (const { id, ...changes } of others) await settleDelivery(db, id, owner, changes, now);
}

/**
 * Records an attempt's end: the delivery's next state, released from the lease, only while this
 * holder still has it (a holder whose lease lapsed must not overwrite the next one's outcome).
 */
export async function settleDelivery(db: Db, id: string, owner: string, changes: Pick<Updateable<WebhookDeliveriesTable>, 'status' | 'attempts' | 'next_attempt_at' | 'last_status' | 'last_error'>, now: number): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ ...changes, lease_owner: null, lease_until: null, updated_at: now })
    .where('id', '=', id).where('lease_owner', '=', owner).execute();
}

/** Gives back leases this owner holds but will not use (it is stopping): due again at once. */
export async function releaseDeliveries(db: Db, ids: readonly string[], owner: string, now: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db.updateTable('webhook_deliveries').set({ lease_owner: null, lease_until: null, updated_at: now })
      .where('id', 'in', ids.slice(i, i + 500)).where('lease_owner', '=', owner).execute();
  }
}

/** Drops the still-pending deliveries of an endpoint (it was disabled: they are recoverable from the outbox). */
export async function failPendingDeliveries(db: Db, endpointId: string, reason: string, now: number): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'failed', last_error: reason, lease_owner: null, lease_until: null, updated_at: now })
    .where('endpoint_id', '=', endpointId).where('status', '=', PENDING).execute();
}

/** Pending deliveries per endpoint (the operator's list). */
export async function pendingDeliveryCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('webhook_deliveries').select(['endpoint_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('status', '=', PENDING).groupBy('endpoint_id').execute();
  return new Map(rows.map((r) => [r.endpoint_id, Number(r.n)]));
}

/** Pending deliveries in all, due or retrying later (the metrics). */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const row = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number | string>().as('n')).where('status', '=', PENDING).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** When the longest-waiting pending delivery due at `now` fell due; undefined when none is (the metrics). */
export async function oldestDueDeliveryAt(db: Db, now: number): Promise<number | undefined> {
  const row = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', PENDING).where('next_attempt_at', '<=', now).executeTakeFirst();
  return row?.due == null ? undefined : Number(row.due);
}
