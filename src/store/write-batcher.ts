/**
 * Group commit for small, independent writes made by many requests at once (a command's insert,
 * its status URL, its outcome). Writes queued during one turn of the event loop go to the
 * database together, and each caller's promise settles only after they commit, so nothing is
 * acknowledged before it is durable (background rows, below, are the one exception). One commit
 * instead of one per write: on SQLite each commit appends to the WAL, on PostgreSQL each one waits
 * for a flush.
 *
 * Two kinds of write share a batch:
 * - `batchedWrite(store, work)`: any statements, run one after another in the shared transaction;
 * - `batchedRows(store, statement, row)`: rows for a statement that writes many rows at once,
 *   so the batch's rows of that statement cost one round trip, not one each (on PostgreSQL every
 *   statement is a socket write and a server round trip; the profile of command creation showed
 *   those writes as its largest cost). A batch that is one such statement needs no transaction.
 * If the shared work fails, each write is retried alone, so one bad write fails only its own
 * caller. A queued write must use only the `trx` it is given, and must not queue another.
 *
 * Where several connections write at once (PostgreSQL), a batch of row statements only (say a
 * turn's command inserts beside its initiations) runs each statement as its own commit, all at
 * once, instead of begin, statements, commit one after another: a creation waits for a shorter
 * chain of round trips (docs/decisions/0024). Each row statement is whole on
 * its own (one statement, or its own transaction when it appends events; only rows naming one
 * command twice, which no caller queues, are written one by one), and the callers' units of one
 * batch name different rows (a caller awaits each write before its next, and a creation's
 * background status URL is its last write); were two to meet on a row, they would wait on its
 * lock as two requests do. Such a batch takes one pool connection per statement it holds, three
 * at most today (a new row statement adds one). Batches with `batchedWrite` work keep the shared
 * transaction: there can be up to MAX_BATCH such units, more than the pool has connections.
 * SQLite keeps it always: one WAL commit, and its writers take turns anyway.
 *
 * `batchedRowsInBackground` is for a row its caller may answer before (a command's status URL:
 * see create-command.ts). On PostgreSQL such rows go to the database one batch at a time, so they
 * gather while the one before commits: under load one statement and commit carries many rows, and
 * no request waits for it, unless a whole batch is already waiting (MAX_BATCH rows: the database
 * is not keeping up, and callers then wait for their commit rather than pile up). On SQLite they
 * are ordinary rows of the turn's group commit, waited for. `backgroundWritesSettled` resolves
 * once no background row is left uncommitted (or after a bound, with how many were); a process
 * stops only after it (roles/start-api.ts), or a clean stop would drop them.
 */
import type { Db, StoreConnection } from './connection.js';
import type { RowsStatement } from './group-commit.js';

/** Runs `work` in the store's next group commit; resolves with its result once committed. */
export function batchedWrite<T>(store: StoreConnection, work: (trx: Db) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    store.groupCommit.enqueue({ run: work, resolve: resolve as (v: unknown) => void, reject });
  });
}

/**
 * Writes `row` with `statement` in the store's next group commit, together with every other row
 * queued for the same statement; resolves with this row's result once committed.
 */
export function batchedRows<R, T>(store: StoreConnection, statement: RowsStatement<R, T>, row: R): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    store.groupCommit.enqueue({ statement: statement as RowsStatement<unknown, unknown>, row, resolve: resolve as (v: unknown) => void, reject });
  });
}

/**
 * Writes `row` with `statement` for a caller that may answer before it commits (see the header).
 * Resolves when the caller may answer: on PostgreSQL at once, the row written in the background
 * one batch at a time (once committed when a full batch is already waiting); on SQLite once
 * committed (its commits are in this process, and answering before them measured slower, not
 * faster). Never rejects: a failure goes to `failed`.
 */
export function batchedRowsInBackground<R>(store: StoreConnection, statement: RowsStatement<R, unknown>, row: R, failed: (error: unknown) => void): Promise<void> {
  let wait = false;
  const committed = new Promise<unknown>((resolve, reject) => {
    wait = store.groupCommit.enqueueBackground({ statement: statement as RowsStatement<unknown, unknown>, row, resolve, reject });
  });
  // Nobody may be waiting for this promise: a throwing report must not become an unhandled rejection.
  const reported = committed.then(() => undefined, (error: unknown) => { try { failed(error); } catch { /* reported as far as it could be */ } });
  return wait ? reported : Promise.resolve();
}

/**
 * Resolves with 0 once no background row of `store` is left uncommitted (each committed or
 * failed), or after `withinMs` with the number still outstanding.
 */
export function backgroundWritesSettled(store: StoreConnection, withinMs = 10_000): Promise<number> {
  return store.groupCommit.backgroundSettled(withinMs);
}
