/** A command's final outcome, Success or Error, with its event. */
import { sql } from 'kysely';
import type { CommandOutcome } from '../../domain/events.js';
import type { Db } from '../connection.js';
import { distinctIds, givenRows } from '../given-rows.js';
import { inTransaction } from '../in-transaction.js';
import type { RowsStatement } from '../group-commit.js';
import { stillPending } from './conditions.js';
import { appendOutcomeEvents, OUTCOME_COLUMNS } from './outcome-events.js';

/** A final outcome; only from Pending, and only by the lease holder when one is given. */
export async function finishCommand(db: Db, id: string, status: 'Success' | 'Error', detail: unknown, now: number, leaseOwner?: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    let q = trx.updateTable('commands')
      .set({ status, detail: JSON.stringify(detail), updated_at: now, next_poll_at: null, lease_owner: null, lease_until: null })
      .where('id', '=', id).where('status', '=', 'Pending');
    if (leaseOwner !== undefined) q = q.where('lease_owner', '=', leaseOwner);
    const landed = await q.returning(OUTCOME_COLUMNS).execute();
    await appendOutcomeEvents(trx, landed, now);
    return landed.length === 1;
  });
}

export interface Outcome {
  readonly id: string;
  readonly status: 'Success' | 'Error';
  readonly detail: unknown;
  readonly now: number;
  readonly leaseOwner?: string;
}

/** `finishCommand` for a group commit's rows: one statement; each row answers whether it landed. */
export const finishCommandRows: RowsStatement<Outcome, boolean> = async (db, rows) => {
  if (rows.length === 1 || !distinctIds(rows)) {
    // One finishCommand each: on a shared transaction its appends must be held to the end
    // (the write batcher's appendEventsLast), or a later update would run with the counter held.
    const landed: boolean[] = [];
    for (const r of rows) landed.push(await finishCommand(db, r.id, r.status, r.detail, r.now, r.leaseOwner));
    return landed;
  }
  const given = givenRows(rows, (r) => [
    sql`cast(${r.id} as varchar(36)) as id`, sql`cast(${r.status} as varchar(16)) as status`, sql`cast(${JSON.stringify(r.detail)} as text) as detail`,
    sql`cast(${r.now} as bigint) as updated_at`, sql`cast(${r.leaseOwner ?? null} as varchar(64)) as lease_owner`,
  ]);
  return inTransaction(db, async (trx) => {
    const { rows: landed } = await sql<CommandOutcome>`
      update commands set status = given.status, detail = given.detail, updated_at = given.updated_at, next_poll_at = null, lease_owner = null, lease_until = null
      from (${given}) as given
      where commands.id = given.id and ${stillPending} and (given.lease_owner is null or commands.lease_owner = given.lease_owner)
      returning ${sql.join(OUTCOME_COLUMNS.map((c) => sql.ref(`commands.${c}`)))}`.execute(trx);
    await appendOutcomeEvents(trx, landed, Math.max(...rows.map((r) => r.now)));
    const ids = new Set(landed.map((r) => r.id));
    return rows.map((r) => ids.has(r.id));
  });
};
