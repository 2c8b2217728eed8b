/**
 * The event outbox, read: readers page by `position`, which writers take as they append
 * (event-appends.ts says why positions are not the insertion id).
 *
 * Rows written without a position (by a version that numbered after commit, still running beside
 * this one in a rolling upgrade, or left from before it) are numbered by `assignEventPositions`,
 * oldest insertion first, under the same lock: a row invisible to one numbering (not yet
 * committed) gets a higher number in a later one.
 */
import { sql } from 'kysely';
import type { OutboxEvent } from '../domain/event-visibility.js';
import type { Db, StoreConnection } from './connection.js';

const POSITION_BATCH = 1000;
const MAX_POSITION_PASSES = 20;
const DELETE_BATCH = 10_000;

/**
 * Gives up to `limit` committed events without a position the next positions, in insertion
 * order; returns how many. One numberer at a time: the first statement locks the counter's row
 * (PostgreSQL) or the file (SQLite) until commit, and every statement after it sees what earlier
 * numberers committed.
 */
export async function assignEventPositions(store: StoreConnection, limit = POSITION_BATCH): Promise<number> {
  return store.db.transaction().execute(async (trx) => {
    await trx.updateTable('event_positions').set((eb) => ({ last_position: eb('last_position', '+', 0) })).where('name', '=', 'events').execute();
    const { last_position: last } = await trx.selectFrom('event_positions').select('last_position').where('name', '=', 'events').executeTakeFirstOrThrow();
    const base = Number(last);
    const { rows } = await sql<{ position: number | string }>`
      update events set position = numbered.position
      from (select seq, ${base} + row_number() over (order by seq) as position
            from events where position is null order by seq limit ${limit}) as numbered
      where events.seq = numbered.seq
      returning events.position`.execute(trx);
    if (rows.length > 0) {
      // The highest one given, not base + count: a row deleted meanwhile (retention) leaves a gap.
      const highest = Math.max(...rows.map((r) => Number(r.position)));
      await trx.updateTable('event_positions').set({ last_position: highest }).where('name', '=', 'events').execute();
    }
    return rows.length;
  });
}

/** An outbox event with the feed position numbering gave it. */
export interface StoredEvent extends OutboxEvent {
  readonly position: number;
}

/**
 * Numbers what has committed, so a reader never waits for a separate numbering pass. A backlog is
 * numbered a batch at a time, at most `batches` per call: writers faster than that cannot keep a
 * reader from answering (the rest is numbered next time). True when events may still be waiting.
 */
export async function numberCommittedEvents(store: StoreConnection, batches = MAX_POSITION_PASSES): Promise<boolean> {
  // Readers poll (the stream every second, feeds, the webhook dispatcher): when nothing waits for
  // a position, a read through the partial index answers without taking the numbering lock.
  const waiting = await eventsWithoutPosition(store.db).limit(1).executeTakeFirst();
  if (waiting === undefined) return false;
  for (let pass = 0; pass < batches; pass += 1) {
    if ((await assignEventPositions(store)) < POSITION_BATCH) return false;
  }
  return true;
}

type EventRow = { position: number | string | null; id: string; type: string; vin: string; company_id: string; application_id: string | null; occurred_at: number | string; data: string };

const toStoredEvent = (r: EventRow): StoredEvent => ({
  position: Number(r.position), id: r.id, type: r.type, vin: r.vin, companyId: r.company_id, applicationId: r.application_id,
  occurredAt: Number(r.occurred_at), data: JSON.parse(r.data) as unknown,
});

/** Events after `position`, in position order, at most `limit` (every company's). */
export async function readEventsAfter(store: StoreConnection, position: number, limit: number): Promise<StoredEvent[]> {
  await numberCommittedEvents(store);
  const rows = await store.db.selectFrom('events').selectAll()
    .where('position', '>', position).orderBy('position').limit(limit).execute();
  return rows.map(toStoredEvent);
}

/** Events by id (those retention has not dropped). */
export async function findEventsByIds(db: Db, ids: readonly string[]): Promise<Map<string, StoredEvent>> {
  const found = new Map<string, StoredEvent>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('events').selectAll().where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const row of rows) found.set(row.id, toStoredEvent(row));
  }
  return found;
}

export interface FeedFilter {
  readonly companyId: string;
  readonly applicationId: string;
  /** Only these types; all when undefined. */
  readonly types?: readonly string[] | undefined;
  readonly vin?: string | undefined;
  /** Only events created at or after this instant (a webhook endpoint's start). */
  readonly createdFrom?: number | undefined;
}

/**
 * One company's events after `position` that an application of it may concern (its own command
 * events, every vehicle and trip event), in position order, at most `limit`. Datapoint rules
 * are the caller's (domain/event-visibility.ts). With `through`, positions up to it only (the
 * caller numbered them, and read that far).
 */
export async function readFeedAfter(store: StoreConnection, filter: FeedFilter, position: number, limit: number, through?: number): Promise<StoredEvent[]> {
  if (through === undefined) await numberCommittedEvents(store);
  let query = store.db.selectFrom('events').selectAll()
    .where('company_id', '=', filter.companyId).where('position', '>', position)
    .where((eb) => eb.or([eb('application_id', 'is', null), eb('application_id', '=', filter.applicationId)]));
  if (filter.types !== undefined) query = query.where('type', 'in', filter.types);
  if (filter.vin !== undefined) query = query.where('vin', '=', filter.vin);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (through !== undefined) query = query.where('position', '<=', through);
  const rows = await query.orderBy('position').limit(limit).execute();
  return rows.map(toStoredEvent);
}

export interface NewestFirstFilter {
  readonly companyId: string;
  readonly applicationId: string;
  /** Only these types (never empty: the caller answers an empty choice itself). */
  readonly types: readonly string[];
  readonly vin?: string | undefined;
}

/**
 * One company's events of the given types before `position` (from the newest when undefined),
 * newest first, at most `limit`: the console's alert history, read backwards through the
 * (company_id, position) index so a page costs `limit` rows however long the outbox is.
 */
export async function readCompanyEventsBefore(store: StoreConnection, filter: NewestFirstFilter, position: number | undefined, limit: number): Promise<StoredEvent[]> {
  if (position === undefined) await numberCommittedEvents(store);
  let query = store.db.selectFrom('events').selectAll()
    .where('company_id', '=', filter.companyId).where('position', 'is not', null)
    .where((eb) => eb.or([eb('application_id', 'is', null), eb('application_id', '=', filter.applicationId)]))
    .where('type', 'in', filter.types);
  if (position !== undefined) query = query.where('position', '<', position);
  if (filter.vin !== undefined) query = query.where('vin', '=', filter.vin);
  const rows = await query.orderBy('position', 'desc').limit(limit).execute();
  return rows.map(toStoredEvent);
}

/** The highest position handed out so far (0 before any): where a reader starting "now" begins. */
export async function lastEventPosition(store: StoreConnection): Promise<number> {
  await numberCommittedEvents(store);
  return numberedThrough(store.db);
}

/** The highest position handed out so far, without numbering what waits for one. */
export function numberedThrough(db: Db): Promise<number> {
  return counter(db, 'events');
}

/** The highest position retention has dropped: a reader behind it has missed events. */
export function prunedThrough(db: Db): Promise<number> {
  return counter(db, 'pruned');
}

async function counter(db: Db, name: 'events' | 'pruned'): Promise<number> {
  const row = await positionCounter(db, name).executeTakeFirst();
  return Number(row?.last_position ?? 0);
}

/** Events waiting for a position (the rows the partial index on `position is null` holds). */
export const eventsWithoutPosition = (db: Db) => db.selectFrom('events').select('seq').where('position', 'is', null);

/** A counter row's `last_position`: a statement of its own, or a subquery of another. */
export const positionCounter = (db: Db, name: 'events' | 'pruned') =>
  db.selectFrom('event_positions').select('last_position').where('name', '=', name);

/**
 * Retention: events written before `cutoff`, in batches (short write locks on SQLite). The
 * position counter is kept, so positions go on growing; the highest position dropped is kept
 * too, so a feed reader from before it is told it missed events.
 */
export async function deleteEventsBefore(db: Db, cutoff: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await db.transaction().execute(async (trx) => {
      const batch = trx.selectFrom('events').select('seq').where('created_at', '<', cutoff).limit(DELETE_BATCH);
      const rows = await trx.deleteFrom('events').where('seq', 'in', batch).returning('position').execute();
      let highest = 0;
      for (const r of rows) if (r.position !== null && Number(r.position) > highest) highest = Number(r.position);
      if (highest > 0) {
        await trx.updateTable('event_positions').set({ last_position: highest })
          .where('name', '=', 'pruned').where('last_position', '<', highest).execute();
      }
      return rows.length;
    });
    deleted += count;
    if (count < DELETE_BATCH) return deleted;
  }
}
