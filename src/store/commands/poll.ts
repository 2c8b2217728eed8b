/** When a Pending command is polled next. */
import type { Db } from '../connection.js';
import { stillPending } from './conditions.js';

/** Still pending at the automaker: poll again later and let go of the lease. */
export async function schedulePoll(db: Db, id: string, leaseOwner: string, nextPollAt: number): Promise<void> {
  await db.updateTable('commands').set((eb) => ({ next_poll_at: nextPollAt, poll_attempts: eb('poll_attempts', '+', 1), lease_owner: null, lease_until: null }))
    .where('id', '=', id).where('status', '=', 'Pending').where('lease_owner', '=', leaseOwner).execute();
}

/**
 * The vehicle's link has news for a Pending command (a tracker answered): poll it now instead of
 * at its backed-off time. A lease held by a worker is left alone; its own poll sees the news.
 */
export async function pollCommandNow(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('commands').set({ next_poll_at: now }).where('id', '=', id).where(stillPending).execute();
}
