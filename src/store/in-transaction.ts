import type { Db } from './connection.js';

/**
 * Runs `work` in a transaction of its own, or in the caller's when there is one: atomic either
 * way, so a write that must go with another (a change and its event) can be called alone or as
 * part of a larger unit (the write batcher's shared transaction).
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
