/** Whether the command worker has anything to do, in one statement. */
import type { Db } from '../connection.js';
import { orphanedInitiation, overdue, pollDue } from './conditions.js';

export interface CommandWorkDue {
  readonly overdue: boolean;
  readonly pollDue: boolean;
  /** A command a crash left without a status URL, to initiate again (reinitiate.ts). */
  readonly orphaned: boolean;
}

/**
 * Whether the command worker's pass has anything to do: a command to expire, a poll due, an
 * initiation to repeat (`orphanedBefore`: when its initiation must have begun). One statement, so
 * an idle pass is one statement instead of four (a transaction round the expiry, and the claim).
 * The overdue look reads Pending rows as the expiry does (no index holds them by deadline), and
 * stops at the first it finds.
 */
export async function commandWorkDue(db: Db, now: number, graceMs: number, orphanedBefore: number): Promise<CommandWorkDue> {
  const row = await db.selectNoFrom((eb) => [
    eb.exists(db.selectFrom('commands').select('id').where(overdue(now, graceMs))).as('overdue'),
    eb.exists(db.selectFrom('commands').select('id').where(pollDue(now))).as('poll_due'),
    eb.exists(db.selectFrom('commands').select('id').where(orphanedInitiation(now, orphanedBefore))).as('orphaned'),
  ]).executeTakeFirstOrThrow();
  // PostgreSQL answers booleans, SQLite 0 or 1.
  return { overdue: Boolean(row.overdue), pollDue: Boolean(row.poll_due), orphaned: Boolean(row.orphaned) };
}
