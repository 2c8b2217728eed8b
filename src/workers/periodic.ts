/**
 * The one loop every background worker runs in: a pass, a wait, the next pass. A worker is only a
 * `runOnce` and its pacing; the loop owns the timer, never overlaps passes, logs a failed pass and
 * tries again later (a run of failures logged at its start, every FAILURE_LOG_EVERY_MS and when it
 * ends), and `stop` waits for the pass under way (so a shutdown never cuts a
 * statement in half). Timers are unref'd: a waiting loop never keeps a process alive; the
 * process's lifetime belongs to whoever started it (`serve` waits for a signal).
 */
import type { Logger } from 'pino';

/** What a pass tells the loop: `more` when it left work waiting (a full batch), so the next comes sooner. */
export type PassOutcome = void | { readonly more: boolean };

export interface PeriodicWorker {
  /** Names the worker in logs: `trip detection`, `command polling`. */
  readonly name: string;
  /** Wait after a pass before the next one. */
  readonly intervalMs: number;
  /** Wait after a pass that reported more work; 0 by default (at once, after pending I/O). */
  readonly busyIntervalMs?: number;
  /** Wait after a failed pass; `intervalMs` by default. */
  readonly retryAfterMs?: number;
  runOnce(): Promise<PassOutcome>;
}

export interface PeriodicOptions {
  /** Failed passes are logged here as errors; without one they are only retried. */
  readonly logger?: Logger | undefined;
  /** Wait before the first pass; 0 by default. */
  readonly firstPassAfterMs?: number;
}

/** Stops the loop: no pass starts afterwards, and it settles once the pass under way has ended. */
export type StopLoop = () => Promise<void>;

/**
 * While passes keep failing (the database away), the failure is logged again at most this often:
 * a worker retrying every 100 ms would otherwise write ten error lines a second.
 */
export const FAILURE_LOG_EVERY_MS = 30_000;

export function startPeriodic(worker: PeriodicWorker, options: PeriodicOptions = {}): StopLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  /** Passes failed in a row, since when, and when that was last logged. */
  let failed = 0;
  let failingSince = 0;
  let loggedAt = 0;

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(pass, ms);
    timer.unref();
  };
  const pass = () => {
    timer = undefined;
    running = (async () => {
      let wait = worker.intervalMs;
      try {
        const outcome = await worker.runOnce();
        if (outcome?.more) wait = worker.busyIntervalMs ?? 0;
        if (failed > 0) {
          options.logger?.info({ worker: worker.name, failedPasses: failed, failingMs: Date.now() - failingSince }, `${worker.name} passes succeed again`);
          failed = 0;
        }
      } catch (error) {
        wait = worker.retryAfterMs ?? worker.intervalMs;
        const now = Date.now();
        if (failed === 0) failingSince = now;
        failed += 1;
        if (failed === 1 || now - loggedAt >= FAILURE_LOG_EVERY_MS) {
          loggedAt = now;
          options.logger?.error({ err: error, worker: worker.name, retryInMs: wait, failedPasses: failed }, `${worker.name} pass failed; retrying`);
        }
      }
      schedule(wait);
    })();
  };

  schedule(options.firstPassAfterMs ?? 0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

/** Starts every worker; the returned stop ends them all (each waiting for its own pass). */
export function startPeriodicAll(workers: readonly PeriodicWorker[], options: PeriodicOptions = {}): StopLoop {
  const stops = workers.map((worker) => startPeriodic(worker, options));
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
