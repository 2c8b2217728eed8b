/** The audit trail's statements: appending under each chain's head lock, paging, and reading a chain whole. */
import { sql } from 'kysely';
import { chainEntries, chainOf, GENESIS_HASH, type AuditDraft, type AuditEntry } from '../domain/audit-chain.js';
// Not connection.ts nor in-transaction.ts: event-appends.ts imports this file, and they import it back.
import type { AuditEntriesTable, Db } from './schema.js';

const toEntry = (r: AuditEntriesTable): AuditEntry => ({
  chain: r.chain, seq: Number(r.seq), at: Number(r.at), actorKind: r.actor_kind, actorId: r.actor_id, action: r.action,
  target: r.target, outcome: r.outcome, details: r.details, prevHash: r.prev_hash, hash: r.hash,
});

/**
 * Appends `drafts` to their chains in `db`'s transaction (or one of its own), so an entry commits
 * with the change it records or not at all. Each chain's head is taken with an update that
 * changes nothing (a row lock on PostgreSQL, and SQLite's writers take turns anyway) before its
 * entries are numbered: concurrent writers queue on the head, never share a number. Chains are
 * locked in name order, so two writers of several chains cannot deadlock.
 */
/** Rows per insert: 11 parameters each stays far below SQLite's 32,766 (a fleet file of thousands of vehicles is one append). */
const ROWS_PER_INSERT = 1000;

export async function appendAuditEntries(db: Db, drafts: readonly AuditDraft[], at: number): Promise<void> {
  if (drafts.length === 0) return;
  const byChain = new Map<string, AuditDraft[]>();
  for (const draft of drafts) {
    const chain = chainOf(draft.companyId);
    let list = byChain.get(chain);
    if (!list) byChain.set(chain, (list = []));
    list.push(draft);
  }
  const append = async (trx: Db) => {
    for (const chain of [...byChain.keys()].sort()) {
      await trx.insertInto('audit_chains').values({ chain, seq: 0, hash: GENESIS_HASH }).onConflict((oc) => oc.column('chain').doNothing()).execute();
      const head = await trx.updateTable('audit_chains').set((eb) => ({ seq: eb.ref('seq') })).where('chain', '=', chain)
        .returning(['seq', 'hash']).executeTakeFirstOrThrow();
      const entries = chainEntries(chain, { seq: Number(head.seq), hash: head.hash }, byChain.get(chain)!, at);
      for (let i = 0; i < entries.length; i += ROWS_PER_INSERT) {
        await trx.insertInto('audit_entries').values(entries.slice(i, i + ROWS_PER_INSERT).map((e) => ({
          chain: e.chain, seq: e.seq, at: e.at, actor_kind: e.actorKind, actor_id: e.actorId, action: e.action, target: e.target,
          outcome: e.outcome, details: e.details, prev_hash: e.prevHash, hash: e.hash,
        }))).execute();
      }
      const last = entries[entries.length - 1]!;
      await trx.updateTable('audit_chains').set({ seq: last.seq, hash: last.hash }).where('chain', '=', chain).execute();
    }
  };
  await (db.isTransaction ? append(db) : db.transaction().execute(append));
}

export interface AuditFilter {
  /** Entries with a lower seq only (the page before). */
  readonly beforeSeq?: number;
  readonly limit: number;
  /** An action name, or a prefix ending in `.` (`command.`). */
  readonly action?: string;
  readonly actorId?: string;
  readonly target?: string;
  readonly since?: number;
  readonly until?: number;
}

/** One page of a chain, newest first; one more row than `limit` is read to tell whether more follow. */
export async function listAuditEntries(db: Db, chain: string, filter: AuditFilter): Promise<{ entries: AuditEntry[]; hasMore: boolean }> {
  let q = db.selectFrom('audit_entries').selectAll().where('chain', '=', chain);
  if (filter.beforeSeq !== undefined) q = q.where('seq', '<', filter.beforeSeq);
  const action = filter.action;
  // A prefix by its length, not LIKE: names hold `_`, which LIKE reads as a wildcard.
  if (action !== undefined) q = action.endsWith('.') ? q.where(sql<string>`substr(action, 1, ${action.length})`, '=', action) : q.where('action', '=', action);
  if (filter.actorId !== undefined) q = q.where('actor_id', '=', filter.actorId);
  if (filter.target !== undefined) q = q.where('target', '=', filter.target);
  if (filter.since !== undefined) q = q.where('at', '>=', filter.since);
  if (filter.until !== undefined) q = q.where('at', '<=', filter.until);
  const rows = await q.orderBy('seq', 'desc').limit(filter.limit + 1).execute();
  return { entries: rows.slice(0, filter.limit).map(toEntry), hasMore: rows.length > filter.limit };
}

export async function listAuditChains(db: Db): Promise<{ chain: string; seq: number; hash: string }[]> {
  const rows = await db.selectFrom('audit_chains').selectAll().orderBy('chain').execute();
  return rows.map((r) => ({ chain: r.chain, seq: Number(r.seq), hash: r.hash }));
}

/** A chain's entries in seq order, a page at a time, so a long chain is checked in bounded memory. */
export async function* readAuditChain(db: Db, chain: string, pageSize = 1000): AsyncGenerator<AuditEntry> {
  let after = 0;
  for (;;) {
    const rows = await db.selectFrom('audit_entries').selectAll().where('chain', '=', chain).where('seq', '>', after).orderBy('seq').limit(pageSize).execute();
    for (const row of rows) yield toEntry(row);
    if (rows.length < pageSize) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/** Chains that have entries but no head (a head row deleted): verification names them too. */
export async function listChainsOfEntries(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('audit_entries').select('chain').distinct().orderBy('chain').execute();
  return rows.map((r) => r.chain);
}

/**
 * Takes the company chain's head lock now, at the start of a transaction whose entry will take it
 * anyway: changes that must see each other (a company's people: "at least one owner") then run one
 * after the other on PostgreSQL too. One chain per transaction, so no new order of locks.
 */
export async function lockAuditChain(trx: Db, companyId: string | null): Promise<void> {
  const chain = chainOf(companyId);
  await trx.insertInto('audit_chains').values({ chain, seq: 0, hash: GENESIS_HASH }).onConflict((oc) => oc.column('chain').doNothing()).execute();
  await trx.updateTable('audit_chains').set((eb) => ({ seq: eb.ref('seq') })).where('chain', '=', chain).execute();
}
