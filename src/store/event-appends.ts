/**
 * The event outbox, written: writers append events inside the transaction of the change they
 * report (`appendEvents`).
 *
 * Why positions are not the insertion id: on PostgreSQL, transaction A may take id 5, transaction
 * B id 6, and B commit first. A reader that saw 6 and resumes "after 6" would never see 5. So a
 * writer takes its positions from a counter row it keeps locked until it commits (appendEvents):
 * writers commit in position order, and a reader resuming after position p misses nothing. On
 * SQLite writers take turns anyway; the same code runs.
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { AuditDraft } from '../domain/audit-chain.js';
import type { EventDraft } from '../domain/events.js';
import { appendAuditEntries } from './audit-queries.js';
import type { Db } from './schema.js';

/** Rows per INSERT: 9 columns × 1,000 stays below SQLite's bound-parameter limit. */
const APPEND_CHUNK = 1000;

type HeldAppend = { readonly events: readonly EventDraft[]; readonly now: number };

/**
 * The appends of a transaction handle made by `appendEventsLast`, waiting for the end of its work.
 * A plugin that changes no statement: it is how the handle itself carries what waits, so that
 * writers handed it need nothing but the handle.
 */
class HeldAppends implements KyselyPlugin {
  readonly appends: HeldAppend[] = [];
  readonly audits: { readonly drafts: readonly AuditDraft[]; readonly now: number }[] = [];
  open = true;

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

const heldAppendsOf = (db: Db): HeldAppends | undefined =>
  db.getExecutor().plugins.find((plugin): plugin is HeldAppends => plugin instanceof HeldAppends && plugin.open);

/**
 * Appends events, each with its feed position; one already written (same id: the same fact) is
 * left as it is, its position unused. Outside a transaction, each chunk commits on its own.
 *
 * Positions are taken from the counter row in the writer's own transaction: the update locks that
 * row until commit, so appending transactions commit in the order they took their positions,
 * and a reader that sees position p sees every position below it that will ever be visible. The
 * price is that appending transactions take turns from their append to their commit; so an
 * append is a transaction's last write (`appendEventsLast` holds the appends of a transaction
 * shared by several writers until its end): a transaction holding the counter never waits for
 * another's row lock.
 */
export async function appendEvents(db: Db, events: readonly EventDraft[], now: number): Promise<void> {
  if (events.length === 0) return;
  const held = heldAppendsOf(db);
  if (held !== undefined) held.appends.push({ events, now });
  else if (db.isTransaction) await writeEvents(db, [{ events, now }]);
  else {
    for (let i = 0; i < events.length; i += APPEND_CHUNK) {
      await db.transaction().execute((trx) => writeEvents(trx, [{ events: events.slice(i, i + APPEND_CHUNK), now }]));
    }
  }
}

/**
 * Runs `work` in the transaction `trx`, handing it a handle on `trx` whose every `appendEvents` is
 * held until `work` is done, then made with one counter update: for a transaction shared by
 * independent writers (the write batcher's), whose later writes would otherwise run with the
 * counter locked.
 */
export async function appendEventsLast<T>(trx: Db, work: (held: Db) => Promise<T>): Promise<T> {
  const held = new HeldAppends();
  let result: T;
  try {
    result = await work(trx.withPlugin(held));
  } finally {
    held.open = false;
  }
  await writeEvents(trx, held.appends);
  for (const { drafts, now } of held.audits) await appendAuditEntries(trx, drafts, now);
  return result;
}

/**
 * Audit entries of a change that also appends events: held like them to the end of a shared
 * transaction (their chain's head is a lock too), written after them, so every writer takes the
 * event counter before any audit head.
 */
export async function appendAuditWithEvents(db: Db, drafts: readonly AuditDraft[], now: number): Promise<void> {
  if (drafts.length === 0) return;
  const held = heldAppendsOf(db);
  if (held !== undefined) held.audits.push({ drafts, now });
  else await appendAuditEntries(db, drafts, now);
}

async function writeEvents(trx: Db, appends: readonly HeldAppend[]): Promise<void> {
  let count = 0;
  for (const a of appends) count += a.events.length;
  if (count === 0) return;
  const { last_position: last } = await trx.updateTable('event_positions')
    .set((eb) => ({ last_position: eb('last_position', '+', count) }))
    .where('name', '=', 'events').returning('last_position').executeTakeFirstOrThrow();
  let position = Number(last) - count;
  for (const { events, now } of appends) {
    for (let i = 0; i < events.length; i += APPEND_CHUNK) {
      await trx.insertInto('events').values(events.slice(i, i + APPEND_CHUNK).map((e) => ({
        id: e.id, type: e.type, vin: e.vin, company_id: e.companyId, application_id: e.applicationId,
        occurred_at: e.occurredAt, data: JSON.stringify(e.data), created_at: now, position: (position += 1),
      }))).onConflict((oc) => oc.column('id').doNothing()).execute();
    }
  }
}
