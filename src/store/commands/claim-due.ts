/** The command worker's claim on commands whose poll is due. */
import type { Db } from '../connection.js';
import type { DialectCapabilities } from '../dialect.js';
import { pollDue, stillPending } from './conditions.js';
import type { CommandRow } from './read.js';

/**
 * Takes up to `limit` due commands for `owner` until `leaseUntil`: Pending, with a status URL,
 * poll time reached, and no live lease. On PostgreSQL rows locked by another claimer are skipped,
 * so instances never wait on each other and never take the same command.
 */
export async function claimDueCommands(
  db: Db, capabilities: DialectCapabilities, owner: string, now: number, leaseUntil: number, limit: number,
): Promise<CommandRow[]> {
  // One statement (a pass used to make three in a transaction: select, update, select again).
  // The due rows are chosen in a materialized CTE: PostgreSQL may run an `in (subquery)` again
  // for each outer row, and each run would skip the rows already locked and take `limit` more.
  return db.with((cte) => cte('due').materialized(), (qb) => {
    const due = qb.selectFrom('commands').select('id').where(pollDue(now)).orderBy('next_poll_at').limit(limit);
    return capabilities.skipLocked ? due.forUpdate().skipLocked() : due;
  })
    .updateTable('commands').set({ lease_owner: owner, lease_until: leaseUntil })
    .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
    .where(stillPending).returningAll().execute();
}
