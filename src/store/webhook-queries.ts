/**
 * Webhook endpoints, their streams, deliveries and attempts (migrations 0012, 0013). Each
 * endpoint's first attempts are sent by whichever instance holds its stream's lease, reading the
 * outbox after the stream's position; a delivery row exists only for what needs another attempt
 * (a failed first attempt, a recovery), claimed by a conditional update so two instances never
 * both hold one. A lease that lapses (its holder died) lets another instance take over: at least
 * once, the same event id.
 */
import type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely';
import { CompiledQuery, sql } from 'kysely';
import type { Db } from './connection.js';
import type { DialectCapabilities } from './dialect.js';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.js';
import { eventsWithoutPosition, positionCounter } from './events-queries.js';
import { equalsNotFromPartialIndex } from './not-from-partial-index.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

/**
 * `status = 'pending'` written as a literal, not a parameter: the partial indexes on pending
 * deliveries are only usable when the planner can see the query asks for what they hold.
 */
export const PENDING = sql.lit('pending');
/** The same check for statements that find deliveries by id, answered by the key (not-from-partial-index.ts). */
const stillPending = equalsNotFromPartialIndex('webhook_deliveries.status', 'pending');
const ENABLED = sql.lit('enabled');

export const insertWebhookEndpoint = (db: Db, row: Insertable<WebhookEndpointsTable>) => db.insertInto('webhook_endpoints').values(row).execute();

export const listWebhookEndpoints = (db: Db, applicationId: string): Promise<WebhookEndpointRow[]> =>
  db.selectFrom('webhook_endpoints').selectAll().where('application_id', '=', applicationId).orderBy('created_at').orderBy('id').execute();

export const listAllWebhookEndpoints = (db: Db): Promise<WebhookEndpointRow[]> =>
  db.selectFrom('webhook_endpoints').selectAll().orderBy('company_id').orderBy('created_at').execute();

export const findWebhookEndpoint = (db: Db, id: string): Promise<WebhookEndpointRow | undefined> =>
  db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();

export async function countWebhookEndpoints(db: Db, applicationId: string): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number | string>().as('n')).where('application_id', '=', applicationId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export const updateWebhookEndpoint = (db: Db, id: string, changes: Updateable<WebhookEndpointsTable>) =>
  db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute();

/** Removes an endpoint; what it had not received is dropped with it. */
export async function deleteWebhookEndpoint(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('webhook_attempts').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

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
const dueAt = (now: number) => (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) => eb.and([
  eb('status', '=', PENDING), eb('next_attempt_at', '<=', now), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
  eb('endpoint_id', 'not in', eb.selectFrom('webhook_endpoints').innerJoin('applications', 'applications.id', 'webhook_endpoints.application_id')
    .select('webhook_endpoints.id').where('applications.enabled', '!=', 1)),
]);

/**
 * The endpoint's application is enabled. `admin app disable` cuts off tokens at once; it cuts
 * off the application's webhooks too: their streams are neither taken nor kept while it is
 * disabled, so nothing is read or sent for them, and the events wait at the stream's position.
 */
const applicationEnabled = (eb: ExpressionBuilder<Database, 'webhook_endpoints'>) => eb.exists(
  eb.selectFrom('applications').select('applications.id')
    .whereRef('applications.id', '=', 'webhook_endpoints.application_id').where('applications.enabled', '=', 1),
);

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
 * A run of attempts' effect on an endpoint's streak, atomically: `clearedAt` when a success came
 * after every failure of the run (the streak ends), else `failedFrom`, the first failure after
 * the run's last success, which starts a streak — unless one is running and the run had no
 * success. Answers the streak's start after, undefined when the endpoint is gone.
 */
export async function recordEndpointRun(db: Db, id: string, run: { readonly anySuccess: boolean; readonly failedFrom: number | undefined }, now: number): Promise<number | null | undefined> {
  const row = await db.updateTable('webhook_endpoints')
    .set((eb) => ({
      failing_since: run.failedFrom === undefined ? null : run.anySuccess ? run.failedFrom : eb.fn.coalesce('failing_since', eb.val(run.failedFrom)),
      updated_at: now,
    }))
    .where('id', '=', id).returning('failing_since').executeTakeFirst();
  return row === undefined ? undefined : row.failing_since === null ? null : Number(row.failing_since);
}

/** Gives back leases this owner holds but will not use (it is stopping): due again at once. */
export async function releaseDeliveries(db: Db, ids: readonly string[], owner: string, now: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db.updateTable('webhook_deliveries').set({ lease_owner: null, lease_until: null, updated_at: now })
      .where('id', 'in', ids.slice(i, i + 500)).where('lease_owner', '=', owner).execute();
  }
}

/** Many attempt log rows at once. */
/** The attempt log's columns, with their PostgreSQL array types for `unnest`. */
const ATTEMPT_COLUMN_TYPES = {
  id: 'varchar', endpoint_id: 'varchar', event_id: 'varchar', event_type: 'varchar', event_position: 'int8', trigger: 'varchar',
  attempted_at: 'int8', duration_ms: 'int4', status_code: 'int4', error: 'varchar',
} as const satisfies Record<keyof WebhookAttemptsTable, string>;
const ATTEMPT_COLUMNS = Object.keys(ATTEMPT_COLUMN_TYPES) as (keyof WebhookAttemptsTable)[];
const ATTEMPT_COLUMN_LIST = ATTEMPT_COLUMNS.map((c) => `"${c}"`).join(', ');
const INSERT_ATTEMPTS_UNNEST_SQL = `insert into webhook_attempts (${ATTEMPT_COLUMN_LIST}) select * from unnest(${
  ATTEMPT_COLUMNS.map((c, i) => `$${i + 1}::${ATTEMPT_COLUMN_TYPES[c]}[]`).join(', ')})`;
const INSERT_ATTEMPT_ROW_SQL = `insert into webhook_attempts (${ATTEMPT_COLUMN_LIST}) values (${ATTEMPT_COLUMNS.map(() => '?').join(', ')})`;

/**
 * The attempt log's rows, one per attempt: the one write a fast receiver's every event costs. In
 * statements of constant text (prepared once, nothing built per row): one `unnest` of an array per
 * column where arrays can be bound (PostgreSQL), otherwise one single-row insert per attempt in
 * the caller's transaction (SQLite runs a prepared insert in microseconds; Kysely building a
 * 500-row insert cost more than SQLite storing it).
 */
export async function insertWebhookAttempts(db: Db, capabilities: DialectCapabilities, rows: readonly Insertable<WebhookAttemptsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  if (capabilities.arrayParameters) {
    const arrays = ATTEMPT_COLUMNS.map((c) => rows.map((row) => row[c] ?? null));
    await db.executeQuery(CompiledQuery.raw(INSERT_ATTEMPTS_UNNEST_SQL, arrays));
    return;
  }
  for (const row of rows) await db.executeQuery(CompiledQuery.raw(INSERT_ATTEMPT_ROW_SQL, ATTEMPT_COLUMNS.map((c) => row[c] ?? null)));
}

/** Endpoints by id (those that still exist). */
export async function findWebhookEndpoints(db: Db, ids: readonly string[]): Promise<Map<string, WebhookEndpointRow>> {
  const found = new Map<string, WebhookEndpointRow>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const row of await db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids.slice(i, i + 500)).execute()) found.set(row.id, row);
  }
  return found;
}

/** Disables an endpoint that is enabled (an operator's disable, or one already made, stands); true when it was. */
export async function disableWebhookEndpoint(db: Db, id: string, reason: string, now: number): Promise<boolean> {
  const result = await db.updateTable('webhook_endpoints').set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', id).where('status', '=', 'enabled').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records an attempt's end: the delivery's next state, released from the lease, only while this
 * holder still has it (a holder whose lease lapsed must not overwrite the next one's outcome).
 */
export async function settleDelivery(db: Db, id: string, owner: string, changes: Pick<Updateable<WebhookDeliveriesTable>, 'status' | 'attempts' | 'next_attempt_at' | 'last_status' | 'last_error'>, now: number): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ ...changes, lease_owner: null, lease_until: null, updated_at: now })
    .where('id', '=', id).where('lease_owner', '=', owner).execute();
}

export const insertWebhookAttempt = (db: Db, row: Insertable<WebhookAttemptsTable>) => db.insertInto('webhook_attempts').values(row).execute();

export const listWebhookAttempts = (db: Db, endpointId: string, limit: number): Promise<WebhookAttemptRow[]> =>
  db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId).orderBy('attempted_at', 'desc').orderBy('id', 'desc').limit(limit).execute();

/** Drops the still-pending deliveries of an endpoint (it was disabled: they are recoverable from the outbox). */
export async function failPendingDeliveries(db: Db, endpointId: string, reason: string, now: number): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'failed', last_error: reason, lease_owner: null, lease_until: null, updated_at: now })
    .where('endpoint_id', '=', endpointId).where('status', '=', PENDING).execute();
}

/**
 * Which of `events` (ids with their outbox positions) an endpoint has received, for recovery: a
 * 2xx in the attempt log (a first attempt that succeeded leaves no delivery row; asked by
 * position, see migration 0014), or a delivery that succeeded.
 */
export async function receivedEventIds(db: Db, endpointId: string, events: ReadonlyArray<{ readonly id: string; readonly position: number | string | null }>): Promise<Set<string>> {
  const received = new Set<string>();
  for (let i = 0; i < events.length; i += 500) {
    const chunk = events.slice(i, i + 500);
    const idAt = new Map(chunk.flatMap((e) => (e.position === null ? [] : [[Number(e.position), e.id] as const])));
    const attempts = idAt.size === 0 ? [] : await db.selectFrom('webhook_attempts').select('event_position')
      .where('endpoint_id', '=', endpointId).where('event_position', 'in', [...idAt.keys()])
      .where('status_code', '>=', 200).where('status_code', '<=', 299).execute();
    for (const { event_position: position } of attempts) {
      const id = idAt.get(Number(position));
      if (id !== undefined) received.add(id);
    }
    const deliveries = await db.selectFrom('webhook_deliveries').select('event_id')
      .where('endpoint_id', '=', endpointId).where('status', '=', 'succeeded').where('event_id', 'in', chunk.map((e) => e.id)).execute();
    for (const r of deliveries) received.add(r.event_id);
  }
  return received;
}

/**
 * Makes deliveries due again now (recovery): those not received are retried from the first
 * attempt. One under a live lease is being sent right now and is left to its holder.
 */
export async function requeueDeliveries(db: Db, endpointId: string, eventIds: readonly string[], now: number): Promise<void> {
  for (let i = 0; i < eventIds.length; i += 500) {
    await db.updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, updated_at: now })
      .where('endpoint_id', '=', endpointId).where('status', '!=', 'succeeded').where('event_id', 'in', eventIds.slice(i, i + 500))
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])).execute();
  }
}

/** Pending deliveries per endpoint (the operator's list). */
export async function pendingDeliveryCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('webhook_deliveries').select(['endpoint_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('status', '=', PENDING).groupBy('endpoint_id').execute();
  return new Map(rows.map((r) => [r.endpoint_id, Number(r.n)]));
}

/** Retention: finished deliveries and attempts older than `cutoff`. */
export async function deleteWebhookHistoryBefore(db: Db, cutoff: number): Promise<number> {
  const deliveries = await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('updated_at', '<', cutoff).executeTakeFirst();
  const attempts = await db.deleteFrom('webhook_attempts').where('attempted_at', '<', cutoff).executeTakeFirst();
  return Number(deliveries.numDeletedRows) + Number(attempts.numDeletedRows);
}

/**
 * Takes up to `limit` enabled endpoints' streams nobody holds (never held, lease lapsed, or an
 * earlier tenure of this owner's it let go of: `reclaim`), for the tenure `token`. Answers the
 * endpoints taken, with the position each stream starts from.
 */
export async function acquireStreams(db: Db, take: { owner: string; token: string; now: number; leaseUntil: number; limit: number; reclaim: readonly string[] }): Promise<WebhookEndpointRow[]> {
  const free = streamFree(take.now, take);
  const candidates = await db.selectFrom('webhook_endpoints').select('id').where(free).orderBy('id').limit(take.limit).execute();
  if (candidates.length === 0) return [];
  // The same condition again: an instance that took one meanwhile keeps it.
  return db.updateTable('webhook_endpoints').set({ stream_owner: take.token, stream_lease_until: take.leaseUntil })
    .where('id', 'in', candidates.map((c) => c.id)).where(free).returningAll().execute();
}

/**
 * An enabled endpoint's stream (of an enabled application) nobody holds, or whose lease lapsed,
 * or one of `reclaim`'s still leased to `owner` (it let go of them without releasing them).
 */
function streamFree(now: number, { owner, reclaim }: { owner: string; reclaim: readonly string[] }) {
  return (eb: ExpressionBuilder<Database, 'webhook_endpoints'>) => eb.and([
    eb('status', '=', ENABLED),
    applicationEnabled(eb),
    eb.or([
      eb('stream_owner', 'is', null), eb('stream_lease_until', '<', now),
      ...(reclaim.length > 0 ? [eb.and([eb('id', 'in', reclaim), eb('stream_owner', 'like', `${owner}:%`)])] : []),
    ]),
  ]);
}

/** What a webhook dispatcher's pass would find to do, looked at in one statement. */
export interface DispatcherNews {
  /** Events wait for a position. */
  readonly unnumbered: boolean;
  /** The highest position handed out (`numberedThrough`). */
  readonly through: number;
  /** An enabled endpoint's stream is free to take, or one this owner let go of to take back. */
  readonly freeStream: boolean;
  /** A delivery is due now, held by nobody. */
  readonly due: boolean;
}

/**
 * The dispatcher's look before a pass: an idle pass costs this one statement instead of four or
 * five (issue 22: passes every 100 ms were most of an idle process's CPU). Each part is the
 * condition of the statement it stands for, so "nothing" here means that statement finds nothing.
 */
export async function dispatcherNews(db: Db, now: number, reclaim: { owner: string; reclaim: readonly string[] }): Promise<DispatcherNews> {
  const row = await db.selectNoFrom((eb) => [
    eb.exists(eventsWithoutPosition(db)).as('unnumbered'),
    positionCounter(db, 'events').as('through'),
    eb.exists(db.selectFrom('webhook_endpoints').select('id').where(streamFree(now, reclaim))).as('free_stream'),
    eb.exists(db.selectFrom('webhook_deliveries').select('id').where(dueAt(now))).as('due'),
  ]).executeTakeFirstOrThrow();
  // PostgreSQL answers booleans, SQLite 0 or 1.
  return { unnumbered: Boolean(row.unnumbered), through: Number(row.through ?? 0), freeStream: Boolean(row.free_stream), due: Boolean(row.due) };
}

/** Extends the leases of streams these tenures still hold; answers the endpoints kept (the others were lost, disabled or their application disabled). */
export async function renewStreams(db: Db, held: ReadonlyArray<{ id: string; token: string }>, leaseUntil: number): Promise<Set<string>> {
  const kept = new Set<string>();
  for (let i = 0; i < held.length; i += 500) {
    const chunk = held.slice(i, i + 500);
    const rows = await db.updateTable('webhook_endpoints').set({ stream_lease_until: leaseUntil })
      .where('id', 'in', chunk.map((h) => h.id)).where('stream_owner', 'in', [...new Set(chunk.map((h) => h.token))]).where('status', '=', ENABLED)
      .where(applicationEnabled)
      .returning(['id', 'stream_owner']).execute();
    for (const row of rows) if (chunk.some((h) => h.id === row.id && h.token === row.stream_owner)) kept.add(row.id);
  }
  return kept;
}

/** Lets go of this owner's streams (all, or these endpoints'): free for any instance at once. */
export async function releaseStreams(db: Db, owner: string, ids?: readonly string[]): Promise<void> {
  if (ids?.length === 0) return;
  let query = db.updateTable('webhook_endpoints').set({ stream_owner: null, stream_lease_until: null }).where('stream_owner', 'like', `${owner}:%`);
  if (ids !== undefined) query = query.where('id', 'in', ids);
  await query.execute();
}

/** Moves a stream's position forward, only while `token` holds it. */
export async function advanceStream(db: Db, id: string, token: string, position: number): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ stream_position: position })
    .where('id', '=', id).where('stream_owner', '=', token).where('stream_position', '<', position).execute();
}
