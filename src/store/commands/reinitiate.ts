/**
 * Commands a crash left without a status URL (src/domain/initiation.ts): found, claimed by one
 * worker under a lease, and given the status URL their repeated initiation got.
 */
import type { Db } from '../connection.js';
import type { DialectCapabilities } from '../dialect.js';
import { orphanedInitiation, stillPending } from './conditions.js';
import type { CommandRow } from './read.js';

/**
 * Takes up to `limit` orphaned commands for `owner` until `leaseUntil`, in one statement. On
 * PostgreSQL rows another instance is claiming are skipped (and its claim re-checked on the rows
 * it locked), so exactly one worker across instances initiates a command again.
 */
export async function claimOrphanedInitiations(
  db: Db, capabilities: DialectCapabilities, owner: string, now: number, startedBefore: number, leaseUntil: number, limit: number,
): Promise<CommandRow[]> {
  // Materialized for the reason claimDueCommands gives: the selection must run once.
  return db.with((cte) => cte('orphaned').materialized(), (qb) => {
    const orphaned = qb.selectFrom('commands').select('id').where(orphanedInitiation(now, startedBefore)).orderBy('created_at').limit(limit);
    return capabilities.skipLocked ? orphaned.forUpdate().skipLocked() : orphaned;
  })
    .updateTable('commands').set({ lease_owner: owner, lease_until: leaseUntil })
    .where('id', 'in', (eb) => eb.selectFrom('orphaned').select('orphaned.id'))
    .where(stillPending).where('status_url', 'is', null).returningAll().execute();
}

/**
 * The automaker answered the repeated initiation: its status URL, the first poll, and the lease
 * let go; only by the lease holder, only while Pending. A URL the creation's own late commit
 * stored meanwhile is the same one (the automaker's contract), so it is simply written again.
 */
export async function recordReinitiation(db: Db, id: string, owner: string, statusUrl: string, firstPoll: number): Promise<boolean> {
  const result = await db.updateTable('commands')
    .set({ status_url: statusUrl, next_poll_at: firstPoll, poll_attempts: 0, lease_owner: null, lease_until: null })
    .where('id', '=', id).where(stillPending).where('lease_owner', '=', owner).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * The repeated initiation did not reach the automaker (unreachable, timed out, 5xx): the command
 * stays orphaned, and no worker claims it again before `notBefore`. The lease is let go but its
 * time kept as that bound (orphanedInitiation reads it), and the try counted in `poll_attempts`
 * for the backoff; only by the lease holder, only while Pending without a URL.
 */
export async function postponeReinitiation(db: Db, id: string, owner: string, notBefore: number): Promise<boolean> {
  const result = await db.updateTable('commands')
    .set((eb) => ({ lease_owner: null, lease_until: notBefore, poll_attempts: eb('poll_attempts', '+', 1) }))
    .where('id', '=', id).where(stillPending).where('status_url', 'is', null).where('lease_owner', '=', owner).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
