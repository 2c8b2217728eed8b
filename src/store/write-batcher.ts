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
 * chain of round trips (bench/RESULTS.md, "Issue 22, tenth step"). Each row statement is whole on
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
 * stops only after it (service.ts), or a clean stop would drop them.
 */
import type { Db, StoreConnection } from './connection.js';
import { appendEventsLast } from './events-queries.js';

/** Writes every row in one statement; resolves with one result per row, in order. */
export type RowsStatement<R, T> = (db: Db, rows: readonly R[]) => Promise<readonly T[]>;

type Settle = { resolve: (value: unknown) => void; reject: (error: unknown) => void };
type Work = Settle & { run: (trx: Db) => Promise<unknown> };
type Row = Settle & { statement: RowsStatement<unknown, unknown>; row: unknown };
type Unit = { alone: Work } | { statement: RowsStatement<unknown, unknown>; rows: Row[] };

/** Most writes in one batch: a burst larger than this is split over several commits. */
const MAX_BATCH = 256;

class WriteBatcher {
  readonly #db: Db;
  readonly #concurrentWriters: boolean;
  #queue: (Work | Row)[] = [];
  #scheduled = false;
  /** PostgreSQL's background rows waiting for the batch being written (`#backgroundBusy`). */
  #background: Row[] = [];
  #backgroundBusy = false;
  /** Background rows not yet committed or failed, and who waits for there to be none. */
  #backgroundOutstanding = 0;
  #settledWaiters: (() => void)[] = [];

  constructor(store: StoreConnection) {
    this.#db = store.db;
    this.#concurrentWriters = store.capabilities.concurrentWriters;
  }

  enqueue(item: Work | Row): void {
    this.#queue.push(item);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => void this.#flush());
    }
  }

  /** True when the caller must wait for the commit: SQLite, or a full batch already waiting. */
  enqueueBackground(row: Row): boolean {
    this.#backgroundOutstanding += 1;
    const settled = () => {
      this.#backgroundOutstanding -= 1;
      if (this.#backgroundOutstanding === 0) for (const wake of this.#settledWaiters.splice(0)) wake();
    };
    const item = alsoOnSettle(row, settled);
    // SQLite commits in this process and its caller waits: the row joins the turn's group commit.
    if (!this.#concurrentWriters) {
      this.enqueue(item);
      return true;
    }
    this.#background.push(item);
    if (!this.#backgroundBusy) void this.#writeBackground();
    return this.#background.length > MAX_BATCH;
  }

  /** Resolves with 0 once no background row is outstanding, or after `withinMs` with how many are. */
  backgroundSettled(withinMs: number): Promise<number> {
    if (this.#backgroundOutstanding === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.#backgroundOutstanding), withinMs);
      this.#settledWaiters.push(() => { clearTimeout(timer); resolve(0); });
    });
  }

  /** One background batch at a time, each into the next group commit like any row; never rejects. */
  async #writeBackground(): Promise<void> {
    this.#backgroundBusy = true;
    while (this.#background.length > 0) {
      const rows = this.#background.splice(0, MAX_BATCH);
      await Promise.all(rows.map((row) => new Promise<void>((written) => this.enqueue(alsoOnSettle(row, written)))));
    }
    this.#backgroundBusy = false;
  }

  async #flush(): Promise<void> {
    const batch = this.#queue.splice(0, MAX_BATCH);
    if (this.#queue.length > 0) setImmediate(() => void this.#flush());
    else this.#scheduled = false;
    const units = groupByStatement(batch);
    if (units.length === 1) return this.#runAlone(units[0]!);
    if (this.#concurrentWriters && units.every((unit) => !('alone' in unit))) {
      await Promise.all(units.map((unit) => this.#runAlone(unit)));
      return;
    }
    let results: (readonly unknown[])[];
    try {
      // Events the writes append are written after all of them: see appendEvents.
      results = await this.#db.transaction().execute((trx) => appendEventsLast(trx, async () => {
        const out: (readonly unknown[])[] = [];
        for (const unit of units) out.push(await runUnit(trx, unit));
        return out;
      }));
    } catch {
      for (const unit of units) await this.#runAlone(unit);
      return;
    }
    units.forEach((unit, i) => settleUnit(unit, results[i]!));
  }

  /** One unit on its own: a single statement commits by itself. On failure, each row alone. */
  async #runAlone(unit: Unit): Promise<void> {
    try {
      settleUnit(unit, await runUnit(this.#db, unit));
    } catch (error) {
      if ('alone' in unit || unit.rows.length === 1) {
        for (const item of 'alone' in unit ? [unit.alone] : unit.rows) item.reject(error);
        return;
      }
      for (const row of unit.rows) await this.#runAlone({ statement: unit.statement, rows: [row] });
    }
  }
}

/** `row`, calling `after` too once it has committed or failed. */
function alsoOnSettle(row: Row, after: () => void): Row {
  return { ...row, resolve: (value) => { row.resolve(value); after(); }, reject: (error) => { row.reject(error); after(); } };
}

function groupByStatement(batch: readonly (Work | Row)[]): Unit[] {
  const units: Unit[] = [];
  const byStatement = new Map<RowsStatement<unknown, unknown>, Row[]>();
  for (const item of batch) {
    if ('run' in item) {
      units.push({ alone: item });
      continue;
    }
    let rows = byStatement.get(item.statement);
    if (!rows) {
      byStatement.set(item.statement, (rows = []));
      units.push({ statement: item.statement, rows });
    }
    rows.push(item);
  }
  return units;
}

async function runUnit(db: Db, unit: Unit): Promise<readonly unknown[]> {
  if ('alone' in unit) return [await unit.alone.run(db)];
  const results = await unit.statement(db, unit.rows.map((r) => r.row));
  if (results.length !== unit.rows.length) throw new Error(`a batched statement answered ${results.length} results for ${unit.rows.length} rows`);
  return results;
}

function settleUnit(unit: Unit, results: readonly unknown[]): void {
  if ('alone' in unit) unit.alone.resolve(results[0]);
  else unit.rows.forEach((row, i) => row.resolve(results[i]));
}

const batchers = new WeakMap<StoreConnection, WriteBatcher>();

function batcherOf(store: StoreConnection): WriteBatcher {
  let batcher = batchers.get(store);
  if (!batcher) batchers.set(store, (batcher = new WriteBatcher(store)));
  return batcher;
}

/** Runs `work` in the store's next group commit; resolves with its result once committed. */
export function batchedWrite<T>(store: StoreConnection, work: (trx: Db) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    batcherOf(store).enqueue({ run: work, resolve: resolve as (v: unknown) => void, reject });
  });
}

/**
 * Writes `row` with `statement` in the store's next group commit, together with every other row
 * queued for the same statement; resolves with this row's result once committed.
 */
export function batchedRows<R, T>(store: StoreConnection, statement: RowsStatement<R, T>, row: R): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    batcherOf(store).enqueue({ statement: statement as RowsStatement<unknown, unknown>, row, resolve: resolve as (v: unknown) => void, reject });
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
    wait = batcherOf(store).enqueueBackground({ statement: statement as RowsStatement<unknown, unknown>, row, resolve, reject });
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
  return batchers.get(store)?.backgroundSettled(withinMs) ?? Promise.resolve(0);
}
