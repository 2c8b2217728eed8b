/**
 * A follower's reads of many rows, a page at a time, giving the event loop back before each page
 * (event-loop-turns.ts). `read(after, limit)` answers the rows after `after`, the last row of the
 * page before (undefined for the first), in key order. Pages go by key, not by offset: rows that
 * leave a list while it is read (a trip closed, a vehicle gone offline) would make an offset skip
 * others.
 */
import type { TurnBudget } from './event-loop-turns.js';

/** Rows a page: short statements on SQLite, few round trips on PostgreSQL. */
export const PAGE_SIZE = 500;

export async function* keysetPages<T>(
  read: (after: T | undefined, limit: number) => Promise<T[]>, budget: TurnBudget,
): AsyncGenerator<T[]> {
  for (let after: T | undefined; ;) {
    await budget.yieldIfSpent();
    const page = await read(after, PAGE_SIZE);
    if (page.length > 0) yield page;
    if (page.length < PAGE_SIZE) return;
    after = page.at(-1);
  }
}
