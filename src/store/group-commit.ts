/**
 * The group commit behind write-batcher.ts, one per store connection: what a turn of the event
 * loop queued, written in one commit (or, on PostgreSQL, one commit per row statement), and the
 * background rows, one batch at a time. The header of write-batcher.ts says why and how.
 */
import type { Db } from './schema.js';
import { appendEventsLast } from './event-appends.js';

/** Writes every row in one statement; resolves with one result per row, in order. */
export type RowsStatement<R, T> = (db: Db, rows: readonly R[]) => Promise<readonly T[]>;

type Settle = { resolve: (value: unknown) => void; reject: (error: unknown) => void };
/** Work for the shared transaction (`batchedWrite`). */
export type QueuedWork = Settle & { run: (trx: Db) => Promise<unknown> };
/** A row for a rows statement (`batchedRows`). */
export type QueuedRow = Settle & { statement: RowsStatement<unknown, unknown>; row: unknown };
type Unit = { alone: QueuedWork } | { statement: RowsStatement<unknown, unknown>; rows: QueuedRow[] };

/** Most writes in one batch: a burst larger than this is split over several commits. */
const MAX_BATCH = 256;

export class GroupCommit {
  readonly #db: Db;
  readonly #concurrentWriters: boolean;
  #queue: (QueuedWork | QueuedRow)[] = [];
  #scheduled = false;
  /** PostgreSQL's background rows waiting for the batch being written (`#backgroundBusy`). */
  #background: QueuedRow[] = [];
  #backgroundBusy = false;
  /** Background rows not yet committed or failed, and who waits for there to be none. */
  #backgroundOutstanding = 0;
  #settledWaiters: (() => void)[] = [];

  constructor(db: Db, concurrentWriters: boolean) {
    this.#db = db;
    this.#concurrentWriters = concurrentWriters;
  }

  enqueue(item: QueuedWork | QueuedRow): void {
    this.#queue.push(item);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => void this.#flush());
    }
  }

  /** True when the caller must wait for the commit: SQLite, or a full batch already waiting. */
  enqueueBackground(row: QueuedRow): boolean {
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
      results = await this.#db.transaction().execute((trx) => appendEventsLast(trx, async (held) => {
        const out: (readonly unknown[])[] = [];
        for (const unit of units) out.push(await runUnit(held, unit));
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
function alsoOnSettle(row: QueuedRow, after: () => void): QueuedRow {
  return { ...row, resolve: (value) => { row.resolve(value); after(); }, reject: (error) => { row.reject(error); after(); } };
}

function groupByStatement(batch: readonly (QueuedWork | QueuedRow)[]): Unit[] {
  const units: Unit[] = [];
  const byStatement = new Map<RowsStatement<unknown, unknown>, QueuedRow[]>();
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
