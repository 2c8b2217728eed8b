/**
 * Webhook endpoint streams (migration 0013): each endpoint's first attempts are sent by whichever
 * instance holds its stream's lease, reading the outbox after the stream's position. A lease that
 * lapses (its holder died) lets another instance take over from that position.
 */
import type { ExpressionBuilder } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../connection.js';
import type { Database } from '../schema.js';
import type { WebhookEndpointRow } from './endpoints.js';

const ENABLED = sql.lit('enabled');

/**
 * The endpoint's application is enabled. `admin app disable` cuts off tokens at once; it cuts
 * off the application's webhooks too: their streams are neither taken nor kept while it is
 * disabled, so nothing is read or sent for them, and the events wait at the stream's position.
 */
const applicationEnabled = (eb: ExpressionBuilder<Database, 'webhook_endpoints'>) => eb.exists(
  eb.selectFrom('applications').select('applications.id')
    .whereRef('applications.id', '=', 'webhook_endpoints.application_id').where('applications.enabled', '=', 1),
);

/**
 * An enabled endpoint's stream (of an enabled application) nobody holds, or whose lease lapsed,
 * or one of `reclaim`'s still leased to `owner` (it let go of them without releasing them).
 */
export function streamFree(now: number, { owner, reclaim }: { owner: string; reclaim: readonly string[] }) {
  return (eb: ExpressionBuilder<Database, 'webhook_endpoints'>) => eb.and([
    eb('status', '=', ENABLED),
    applicationEnabled(eb),
    eb.or([
      eb('stream_owner', 'is', null), eb('stream_lease_until', '<', now),
      ...(reclaim.length > 0 ? [eb.and([eb('id', 'in', reclaim), eb('stream_owner', 'like', `${owner}:%`)])] : []),
    ]),
  ]);
}

/**
 * Takes up to `limit` enabled endpoints' streams nobody holds (never held, lease lapsed, or one
 * this owner let go of under an earlier lease: `reclaim`), leasing them as `token`. Answers the
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

/** Extends the leases of streams still held as these tokens; answers the endpoints kept (the others were lost, disabled or their application disabled). */
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

/** The position of the enabled endpoint whose stream is furthest behind; undefined when none is enabled (the metrics). */
export async function slowestStreamPosition(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.min('stream_position').as('slowest')).where('status', '=', 'enabled').executeTakeFirst();
  return row?.slowest == null ? undefined : Number(row.slowest);
}
