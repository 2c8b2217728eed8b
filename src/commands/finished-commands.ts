/**
 * Answers of GET /vehicle-command/{id} for commands that have ended. An ended command (Success or
 * Error) never changes again and is never deleted, on any instance, so its answer can be kept:
 * a client reading it again (the last poll of a wait, a dashboard, a retry) costs no database
 * round trip. A Pending command is read every time: another instance may have finished it.
 * Kept per database handle (each service's store), at most `LIMIT`, the oldest dropped first.
 */
import type { Db } from '../store/connection.js';

export interface CommandResource {
  readonly id: string;
  readonly vin: string;
  readonly command: string;
  readonly status: string;
  readonly detail: unknown;
  readonly updated: string;
}

export interface FinishedCommand {
  /** The application that created it: the only one that may read it. */
  readonly applicationId: string;
  readonly resource: CommandResource;
}

/** Under a few KB each (a diagnostics result is the largest): tens of MB at most. */
const LIMIT = 10_000;

const FINAL_STATUSES: ReadonlySet<string> = new Set(['Success', 'Error']);

export const isFinalStatus = (status: string): boolean => FINAL_STATUSES.has(status);

const byDb = new WeakMap<Db, Map<string, FinishedCommand>>();

/** The kept answer for command `id`, if it has ended and was read here since. */
export function finishedCommand(db: Db, id: string): FinishedCommand | undefined {
  return byDb.get(db)?.get(id);
}

/** Keeps the answer of an ended command (callers check `isFinalStatus`). */
export function rememberFinishedCommand(db: Db, id: string, finished: FinishedCommand): void {
  let kept = byDb.get(db);
  if (kept === undefined) byDb.set(db, (kept = new Map()));
  if (kept.size >= LIMIT && !kept.has(id)) kept.delete(kept.keys().next().value!);
  kept.set(id, finished);
}
