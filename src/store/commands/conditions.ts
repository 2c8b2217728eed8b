/**
 * The guards command statements filter on. Every state change of a command is one statement
 * guarded by the state it leaves (and, for workers, by the lease it holds), so concurrent callers
 * cannot both win.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import { equalsNotFromPartialIndex } from '../not-from-partial-index.js';
import type { Database } from '../schema.js';

/**
 * For the worker's queries over Pending commands: a literal, not a parameter, since SQLite uses
 * the partial index on Pending rows only when it can see the value.
 */
export const PENDING = sql.lit('Pending');

/** For statements that find commands by id: the same check, answered by the primary key. */
export const stillPending = equalsNotFromPartialIndex('commands.status', 'Pending');

/** Pending with a status URL, its poll due, held by no worker (or its lease lapsed). */
export const pollDue = (now: number) => (eb: ExpressionBuilder<Database, 'commands'>) => eb.and([
  eb('status', '=', PENDING), eb('status_url', 'is not', null), eb('next_poll_at', '<=', now),
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
]);

/** Pending past its deadline, held by no worker, or held `graceMs` past it (expireOverdueCommands). */
export const overdue = (now: number, graceMs: number) => (eb: ExpressionBuilder<Database, 'commands'>) => eb.and([
  eb('status', '=', PENDING), eb('deadline_at', '<', now),
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('deadline_at', '<', now - graceMs)]),
]);

/**
 * Pending with no status URL (and so no poll time: `next_poll_at` is set with the URL, which lets
 * the partial index on Pending rows' poll times find them), whose initiation began before
 * `startedBefore` (when its confirmation code was used, for a confirmed command), held by no
 * worker or its lease lapsed. A command still inside its creation's request began later.
 */
export const orphanedInitiation = (now: number, startedBefore: number) => (eb: ExpressionBuilder<Database, 'commands'>) => eb.and([
  eb('status', '=', PENDING), eb('next_poll_at', 'is', null), eb('status_url', 'is', null),
  eb(eb.fn.coalesce('code_used_at', 'created_at'), '<', startedBefore),
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
]);
