/**
 * Answers of GET /vehicle-command/{id} for commands that have ended. An ended command (Success or
 * Error) never changes again and is never deleted, on any instance, so its answer can be kept:
 * a client reading it again (the last poll of a wait, a dashboard, a retry) costs no database
 * round trip. A Pending command is read every time: another instance may have finished it.
 * Kept by the routes that read commands (one table each), at most `LIMIT`, the oldest dropped first.
 */
import type { commandStatusBody } from '../domain/events.js';

/** GET /vehicle-command/{id}'s answer. */
export type CommandResource = ReturnType<typeof commandStatusBody>;

export interface FinishedCommand {
  /** The application that created it: the only one that may read it. */
  readonly applicationId: string;
  readonly resource: CommandResource;
}

/** Under a few KB each (a diagnostics result is the largest): tens of MB at most. */
const LIMIT = 10_000;

export class FinishedCommands {
  readonly #kept = new Map<string, FinishedCommand>();

  /** The kept answer for command `id`, if it has ended and was read here since. */
  get(id: string): FinishedCommand | undefined {
    return this.#kept.get(id);
  }

  /** Keeps the answer of an ended command (callers check `isFinalStatus`, domain/command-status.ts). */
  remember(id: string, finished: FinishedCommand): void {
    if (this.#kept.size >= LIMIT && !this.#kept.has(id)) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(id, finished);
  }
}
