/**
 * Follows Pending commands until the automaker answers or their deadline passes (D6). The
 * commands table is the queue: `runOnce` claims due commands under a short lease, polls each
 * status URL once, and records the outcome with statements guarded by the lease, so a worker
 * whose lease lapsed cannot overwrite what another recorded. Overdue commands are swept to
 * `Command timeout.`. After a crash nothing is lost: leases expire and polling resumes, and a
 * command the crash left without its status URL is initiated again with the same idempotency key
 * (src/domain/initiation.ts), tried again with backoff until it reaches the automaker or the deadline.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { COMMAND_ERROR_TEXTS, commandErrorText } from '../domain/command-status.js';
import { documentedResult } from '../domain/command-results.js';
import { OemFailure, type CommandState, type ConnectorLookup } from '../domain/oem-connector.js';
import { batchedRows, batchedWrite } from '../store/write-batcher.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { claimDueCommands } from '../store/commands/claim-due.js';
import { expireOverdueCommands } from '../store/commands/expire.js';
import { finishCommandRows } from '../store/commands/finish.js';
import { schedulePoll } from '../store/commands/poll.js';
import type { CommandRow } from '../store/commands/read.js';
import { claimOrphanedInitiations, postponeReinitiation, recordReinitiation } from '../store/commands/reinitiate.js';
import { commandWorkDue } from '../store/commands/work-due.js';
import { FIRST_POLL_MS, REINITIATE_AFTER_MS } from '../domain/initiation.js';
import type { StoreConnection } from '../store/connection.js';
import { findOem } from '../store/registry-queries.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { WriteGathering } from '../workers/write-gathering.js';

export interface CommandWorkerSettings {
  /** A claimed command is this worker's for this long; longer than a poll's timeout. */
  readonly leaseMs: number;
  /** How long past its deadline a command held by a worker may stay Pending (the poll timeout). */
  readonly deadlineGraceMs?: number;
  readonly batch: number;
  readonly idleIntervalMs: number;
  /** How long after its initiation began a command without a status URL is initiated again (REINITIATE_AFTER_MS). */
  readonly reinitiateAfterMs?: number;
}

/**
 * How long a poll's outcome may wait for the rest of its pass's to be written with them: one commit
 * for a pass instead of one per poll (profiled, the worker's commits were the largest part of its
 * database time: docs/decisions/0016-worker-outcomes-share-a-commit.md).
 */
const OUTCOME_GATHER_MS = 10;

export const DEFAULT_WORKER_SETTINGS: CommandWorkerSettings = Object.freeze({ leaseMs: 15_000, batch: 20, idleIntervalMs: 250 });

/** Poll backoff: 1, 2, 4, 8 s, then every 10 s, with ±20 % jitter so polls do not bunch up. */
export function nextPollDelay(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(10_000, 1000 * 2 ** attempts);
  return Math.round(base * (0.8 + 0.4 * random()));
}

export interface WorkerPass {
  claimed: number;
  finished: number;
  expired: number;
  /** Commands left without a status URL that were initiated again (successfully or not). */
  reinitiated: number;
}

export class CommandWorker {
  readonly owner = `worker-${randomUUID()}`;
  readonly #store: StoreConnection;
  readonly #connectors: ConnectorLookup;
  readonly #clock: Clock;
  readonly #settings: CommandWorkerSettings;
  readonly #logger: Logger | undefined;

  constructor(store: StoreConnection, connectors: ConnectorLookup, clock: Clock, settings: CommandWorkerSettings = DEFAULT_WORKER_SETTINGS, logger?: Logger) {
    this.#store = store;
    this.#connectors = connectors;
    this.#clock = clock;
    this.#settings = settings;
    this.#logger = logger;
  }

  /** Outcomes of one pass's polls share commits (group commit), each still guarded by the lease. */
  #finish(id: string, status: 'Success' | 'Error', detail: unknown, now: number): Promise<boolean> {
    return batchedRows(this.#store, finishCommandRows, { id, status, detail, now, leaseOwner: this.owner });
  }

  #reschedule(id: string, nextPollAt: number): Promise<void> {
    return batchedWrite(this.#store, (trx) => schedulePoll(trx, id, this.owner, nextPollAt));
  }

  async runOnce(): Promise<WorkerPass> {
    const db = this.#store.db;
    const now = this.#clock.now();
    const pass: WorkerPass = { claimed: 0, finished: 0, expired: 0, reinitiated: 0 };
    const graceMs = this.#settings.deadlineGraceMs ?? 5_000;
    const orphanedBefore = now - (this.#settings.reinitiateAfterMs ?? REINITIATE_AFTER_MS);
    // One look first: almost every pass finds nothing overdue, and an idle one nothing at all.
    const due = await commandWorkDue(db, now, graceMs, orphanedBefore);
    if (due.overdue) pass.expired = await expireOverdueCommands(db, now, COMMAND_ERROR_TEXTS.timeout, graceMs);
    if (due.orphaned) pass.reinitiated = await this.#reinitiateOrphans(now, orphanedBefore);
    if (!due.pollDue) return pass;
    const claimed = await claimDueCommands(db, this.#store.capabilities, this.owner, now, now + this.#settings.leaseMs, this.#settings.batch);
    pass.claimed = claimed.length;
    // The pass's outcomes share commits: polls answered within a few ms of each other are written together.
    const gathering = new WriteGathering(claimed.length, OUTCOME_GATHER_MS);
    // Every task ends before the pass does (a failed one does not leave others running past it).
    const tasks = await Promise.allSettled(claimed.map(async (command) => {
      const at = () => this.#clock.now();
      if (command.deadline_at !== null && at() > command.deadline_at) {
        await gathering.arrive();
        if (await this.#finish(command.id, 'Error', COMMAND_ERROR_TEXTS.timeout, at())) pass.finished += 1;
        return;
      }
      const oem = await cachedRegistryRead(this.#store, `oem:${command.oem}`, () => findOem(db, command.oem));
      let state: CommandState;
      try {
        state = await this.#connectors.for(oem ?? { connector: 'none', base_url: null }).poll(command.status_url!);
      } catch (error) {
        if (!(error instanceof OemFailure)) throw error;
        // The automaker did not answer this time: try again later, until the deadline.
        this.#logger?.debug({ command: command.id, err: error }, 'status poll failed');
        state = { state: 'pending' };
      }
      await gathering.arrive();
      if (state.state === 'pending') {
        await this.#reschedule(command.id, at() + nextPollDelay(command.poll_attempts));
      } else if (state.state === 'success') {
        // What the tenant reads is what is stored: only documented fields of documented types.
        if (await this.#finish(command.id, 'Success', documentedResult(command.command, state.result), at())) pass.finished += 1;
      } else if (await this.#finish(command.id, 'Error', commandErrorText(state.reason), at())) {
        pass.finished += 1;
        // Once per command (finishing is terminal): an operator who moved an automaker learns why.
        if (state.why !== undefined) this.#logger?.warn({ command: command.id, oem: command.oem, why: state.why }, `command ended in error: ${state.why}`);
      }
    }));
    const failed = tasks.find((t) => t.status === 'rejected');
    if (failed) throw failed.reason;
    return pass;
  }

  /**
   * Commands a crash left without a status URL (the automaker may have accepted them): each is
   * initiated again, by the one worker whose claim took it, with the same command id and so the
   * same `Idempotency-Key`; the automaker answers the status URL it gave the first time, and the
   * command is polled as usual. A repeat that does not reach the automaker is tried again with
   * backoff until the deadline (then `Command timeout.`); one the automaker refuses ends the
   * command as `Communication failures.` at once.
   */
  async #reinitiateOrphans(now: number, orphanedBefore: number): Promise<number> {
    const db = this.#store.db;
    const claimed = await claimOrphanedInitiations(db, this.#store.capabilities, this.owner, now, orphanedBefore, now + this.#settings.leaseMs, this.#settings.batch);
    const tasks = await Promise.allSettled(claimed.map((command) => this.#reinitiate(command)));
    const failed = tasks.find((t) => t.status === 'rejected');
    if (failed) throw failed.reason;
    return claimed.length;
  }

  async #reinitiate(command: CommandRow): Promise<void> {
    const at = () => this.#clock.now();
    if (command.deadline_at !== null && at() > command.deadline_at) {
      await this.#finish(command.id, 'Error', COMMAND_ERROR_TEXTS.timeout, at());
      return;
    }
    const oem = await cachedRegistryRead(this.#store, `oem:${command.oem}`, () => findOem(this.#store.db, command.oem));
    const connector = this.#connectors.for(oem ?? { connector: 'none', base_url: null });
    try {
      const { statusUrl } = await connector.initiate({ commandId: command.id, vin: command.vin, command: command.command });
      await recordReinitiation(this.#store.db, command.id, this.owner, statusUrl, at() + FIRST_POLL_MS);
      this.#logger?.info({ command: command.id, oem: command.oem }, 'a command left without its status URL was initiated again (same Idempotency-Key)');
    } catch (error) {
      if (!(error instanceof OemFailure)) throw error;
      if (error.kind === 'initiate') {
        // A definite answer: the automaker refused the repeat or gave no usable status URL. Trying
        // again would get the same; the exchange about this command cannot be taken up again.
        this.#logger?.warn({ command: command.id, oem: command.oem, err: error }, 'the automaker refused the repeated initiation of a command left without its status URL: it ends as `Communication failures.`');
        await this.#finish(command.id, 'Error', COMMAND_ERROR_TEXTS.communication, at());
        return;
      }
      // Not reached (unreachable, timed out, 5xx): the same key makes another try harmless. Tried
      // again after the polls' backoff, never later than the deadline, where it ends as any
      // Pending command does (`Command timeout.`).
      const retryAt = Math.min(at() + nextPollDelay(command.poll_attempts), command.deadline_at ?? Number.POSITIVE_INFINITY);
      this.#logger?.warn({ command: command.id, oem: command.oem, err: error, retryInMs: retryAt - at() }, 'a command left without its status URL could not be initiated again: tried again after a backoff, until its deadline');
      await postponeReinitiation(this.#store.db, command.id, this.owner, retryAt);
    }
  }

  /**
   * The pass for the periodic loop: back to back while a pass claimed a full batch (more are
   * likely due), otherwise `idleIntervalMs` apart, and 1 s after a failure (the database is likely
   * away). A pass that claimed only a few waits like an idle one: under a steady stream of commands
   * the next pass then claims what fell due meanwhile in one go, instead of one or two commands per
   * pass each paying its own claim and commits (docs/decisions/0016); no poll waits
   * longer past its time than it would in an idle moment.
   */
  periodicWorker(): PeriodicWorker {
    return {
      name: 'command polling',
      intervalMs: this.#settings.idleIntervalMs,
      busyIntervalMs: 0,
      retryAfterMs: 1000,
      runOnce: async () => ({ more: (await this.runOnce()).claimed >= this.#settings.batch }),
    };
  }
}
