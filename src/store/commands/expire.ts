/** Commands past their deadline end as `Command timeout.` (D6), with their events. */
import type { Db } from '../connection.js';
import { inTransaction } from '../in-transaction.js';
import { overdue } from './conditions.js';
import { appendOutcomeEvents, OUTCOME_COLUMNS } from './outcome-events.js';

/**
 * Pending past their deadline end as `Command timeout.` (D6): at once when no worker holds them,
 * and `graceMs` later even when one does (its poll is bounded by that), so a worker that died
 * holding a lease cannot keep a command Pending past its deadline for the rest of the lease.
 */
export async function expireOverdueCommands(db: Db, now: number, detail: string, graceMs: number): Promise<number> {
  return inTransaction(db, async (trx) => {
    const expired = await trx.updateTable('commands')
      .set({ status: 'Error', detail: JSON.stringify(detail), updated_at: now, next_poll_at: null, lease_owner: null, lease_until: null })
      .where(overdue(now, graceMs)).returning(OUTCOME_COLUMNS).execute();
    await appendOutcomeEvents(trx, expired, now);
    return expired.length;
  });
}
