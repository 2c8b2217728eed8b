/**
 * Group commit for small, independent writes made by many requests at once (a command's insert,
 * its status URL, its outcome). Writes queued during one turn of the event loop go to the
 * database in one transaction, and each caller's promise settles only after that transaction
 * commits, so nothing is acknowledged before it is durable. One commit instead of one per write:
 * on SQLite each commit appends to the WAL, on PostgreSQL each one waits for a flush.
 * If the shared transaction fails, each write is retried alone, so one bad write fails only its
 * own caller. A queued write must use only the `trx` it is given, and must not queue another.
 */
import type { Db, StoreConnection } from './connection.js';

type Work = { run: (trx: Db) => Promise<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/** Most writes in one transaction: a burst larger than this is split over several commits. */
const MAX_BATCH = 256;

class WriteBatcher {
  readonly #db: Db;
  #queue: Work[] = [];
  #scheduled = false;

  constructor(db: Db) {
    this.#db = db;
  }

  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ run: work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue.splice(0, MAX_BATCH);
    if (this.#queue.length > 0) setImmediate(() => void this.#flush());
    else this.#scheduled = false;
    if (batch.length === 1) return this.#alone(batch[0]!);
    let results: unknown[];
    try {
      results = await this.#db.transaction().execute(async (trx) => {
        const out: unknown[] = [];
        for (const work of batch) out.push(await work.run(trx));
        return out;
      });
    } catch {
      for (const work of batch) await this.#alone(work);
      return;
    }
    batch.forEach((work, i) => work.resolve(results[i]));
  }

  async #alone(work: Work): Promise<void> {
    try {
      work.resolve(await work.run(this.#db));
    } catch (error) {
      work.reject(error);
    }
  }
}

const batchers = new WeakMap<StoreConnection, WriteBatcher>();

/** Runs `work` in the store's next group commit; resolves with its result once committed. */
export function batchedWrite<T>(store: StoreConnection, work: (trx: Db) => Promise<T>): Promise<T> {
  let batcher = batchers.get(store);
  if (!batcher) batchers.set(store, (batcher = new WriteBatcher(store.db)));
  return batcher.run(work);
}
