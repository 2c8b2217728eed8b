/**
 * Background passes share the event loop with the gateway's acks and the API's answers. A pass
 * over many vehicles on SQLite never gives the loop back by itself: better-sqlite3 answers
 * synchronously, so a chain of awaited statements runs on microtasks, and sockets wait for the
 * whole chain. A pass asks its `TurnBudget` between units of work (a page, a vehicle); once the
 * current turn has run `budgetMs`, the pass waits one turn (setImmediate), so sockets are read and
 * timers run before it goes on.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** A few milliseconds: what an ack may wait behind a background pass, at most, in the usual case. */
export const TURN_BUDGET_MS = 3;

export class TurnBudget {
  readonly budgetMs: number;
  #since = performance.now();
  #yields = 0;

  constructor(budgetMs = TURN_BUDGET_MS) {
    this.budgetMs = budgetMs;
  }

  /** Gives the event loop a turn if this one has used up its budget. */
  async yieldIfSpent(): Promise<void> {
    if (performance.now() - this.#since < this.budgetMs) return;
    await nextTurn();
    this.#yields += 1;
    this.#since = performance.now();
  }

  /** How many turns were given back (for tests and pass reports). */
  get yields(): number {
    return this.#yields;
  }
}
