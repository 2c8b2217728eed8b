import type { Db } from '../connection.js';
import { eventsWithoutPosition, positionCounter } from '../events-queries.js';
import { dueAt } from './deliveries.js';
import { streamFree } from './streams.js';

/** What a webhook dispatcher's pass would find to do, looked at in one statement. */
export interface DispatcherNews {
  /** Events wait for a position. */
  readonly unnumbered: boolean;
  /** The highest position handed out (`numberedThrough`). */
  readonly through: number;
  /** An enabled endpoint's stream is free to take, or one this owner let go of to take back. */
  readonly freeStream: boolean;
  /** A delivery is due now, held by nobody. */
  readonly due: boolean;
}

/**
 * The dispatcher's look before a pass: an idle pass costs this one statement instead of four or
 * five (passes every 100 ms were most of an idle process's CPU). Each part is the condition of
 * the statement it stands for, so "nothing" here means that statement finds nothing.
 */
export async function dispatcherNews(db: Db, now: number, reclaim: { owner: string; reclaim: readonly string[] }): Promise<DispatcherNews> {
  const row = await db.selectNoFrom((eb) => [
    eb.exists(eventsWithoutPosition(db)).as('unnumbered'),
    positionCounter(db, 'events').as('through'),
    eb.exists(db.selectFrom('webhook_endpoints').select('id').where(streamFree(now, reclaim))).as('free_stream'),
    eb.exists(db.selectFrom('webhook_deliveries').select('id').where(dueAt(now))).as('due'),
  ]).executeTakeFirstOrThrow();
  // PostgreSQL answers booleans, SQLite 0 or 1.
  return { unnumbered: Boolean(row.unnumbered), through: Number(row.through ?? 0), freeStream: Boolean(row.free_stream), due: Boolean(row.due) };
}
