/**
 * Where the dispatcher's attempts end: each outcome (a retried delivery's next state or a failed
 * first attempt's delivery row, the attempt log's row, the endpoint's health, how far its stream
 * has finished) waits here up to 50 ms and is written with the others of that moment in
 * one transaction. A fast receiver answers thousands of attempts a second; writing each on its
 * own cost more than sending it.
 *
 * Nothing is lost by waiting: until its outcome is written, a delivery stays leased to this
 * process and a stream's position stays before the event, and if the process dies first the
 * lease lapses and the event is sent again with the same `webhook-id` (at least once, D12). A
 * write that fails loses the stream leases it advanced: their retry rows may be missing, so the
 * stream starts again from the position written last.
 */
import type { Logger } from 'pino';
import { shouldDisable } from '../../domain/webhook-retry.js';
import type { Db } from '../../store/connection.js';
import type { DialectCapabilities } from '../../store/dialect.js';
import { insertWebhookAttempts } from '../../store/webhooks/attempts.js';
import { insertDeliveries, settleDeliveries } from '../../store/webhooks/deliveries.js';
import { recordEndpointRun } from '../../store/webhooks/endpoints.js';
import { advanceStream } from '../../store/webhooks/streams.js';
import { batchOutcomes, leaseKey, type DeliveryOutcome } from './outcome-batch.js';

/** Outcomes written at once at most; more wait for the next write. */
const MAX_BATCH = 500;
/**
 * How long an outcome waits for others before it is written alone. Each write is a transaction
 * (on SQLite its begin and commit cost ~0.6 ms whatever it holds); at 10 ms they took a tenth of
 * the dispatcher's thread while a fast receiver drained a backlog. Waiting longer only delays
 * the attempt log, and what a crash would send again.
 */
const WAIT_MS = 50;

export interface OutcomeWriterOptions {
  readonly db: Db;
  readonly capabilities: DialectCapabilities;
  /** The lease holder: an outcome is written only while this owner still holds its delivery. */
  readonly owner: string;
  readonly disableAfterMs: number;
  readonly logger: Logger;
  /** Called after a write for each endpoint to disable: gone (410) or failing too long. */
  readonly disable: (endpointId: string, reason: 'gone' | 'failing', at: number) => Promise<void>;
  /** Called when a write with this stream lease's advance failed: the stream must start over. */
  readonly streamLost: (endpointId: string, token: string) => void;
}

export class DeliveryOutcomes {
  readonly #options: OutcomeWriterOptions;
  #waiting: DeliveryOutcome[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #disabling = new Set<Promise<void>>();
  /** Stream leases (`endpoint token`) whose advances are no longer written (a write of theirs failed). */
  readonly #lost = new Set<string>();

  constructor(options: OutcomeWriterOptions) {
    this.#options = options;
  }

  add(outcome: DeliveryOutcome): void {
    if (this.#closed) return; // Stopped: the lease lapses and the delivery is sent again.
    this.#waiting.push(outcome);
    if (this.#waiting.length >= MAX_BATCH) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), WAIT_MS);
  }

  /** Writes everything added so far; resolves when it is written (or its write failed and was logged). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#waiting;
    this.#waiting = [];
    if (batch.length > 0) {
      this.#writing = this.#writing.then(() => this.#write(batch)).catch((error: unknown) => {
        this.#options.logger.error({ err: error, outcomes: batch.length }, 'webhook outcomes could not be written; their leases will lapse and they will be sent again');
        // Before the next write: its advances may pass events whose retry rows were in this one.
        for (const { endpointId, stream } of batch) {
          if (stream === undefined || this.#lost.has(leaseKey(endpointId, stream))) continue;
          this.#lost.add(leaseKey(endpointId, stream));
          this.#options.streamLost(endpointId, stream);
        }
      });
    }
    return this.#writing;
  }

  /** Writes everything added so far and waits for the disables it led to. */
  async drain(): Promise<void> {
    await this.flush();
    await Promise.all(this.#disabling);
  }

  /** Writes what waits and takes no more. */
  async close(): Promise<void> {
    const written = this.drain();
    this.#closed = true;
    await written;
  }

  async #write(batch: readonly DeliveryOutcome[]): Promise<void> {
    const { db, owner, disableAfterMs } = this.#options;
    const at = batch.at(-1)!.at;
    const { succeeded, others, attempts, retries, advances, runs, endpoints } = batchOutcomes(batch, this.#lost);
    const write = () => db.transaction().execute(async (trx) => {
      const toDisable: Array<[string, 'gone' | 'failing']> = [];
      await insertWebhookAttempts(trx, this.#options.capabilities, attempts);
      await insertDeliveries(trx, retries);
      await settleDeliveries(trx, owner, succeeded, others, at);
      for (const endpointId of endpoints) {
        // After the retry rows: a stream moves past a failed event only with its row written.
        const advance = advances.get(endpointId);
        if (advance !== undefined) await advanceStream(trx, endpointId, advance.token, advance.position);
        const run = runs.get(endpointId);
        if (run === undefined) continue;
        if (run.gone) {
          toDisable.push([endpointId, 'gone']);
          continue;
        }
        const failingSince = await recordEndpointRun(trx, endpointId, run, at);
        if (failingSince !== undefined && shouldDisable({ failingSince }, at, disableAfterMs)) toDisable.push([endpointId, 'failing']);
      }
      return toDisable;
    });
    let toDisable: Array<[string, 'gone' | 'failing']>;
    try {
      toDisable = await write();
    } catch (error) {
      // Once more (a deadlock or a serialization failure on PostgreSQL is worth a second try).
      this.#options.logger.warn({ err: error, outcomes: batch.length }, 'webhook outcomes could not be written; trying once more');
      toDisable = await write();
    }
    // Outside the write chain: a slow disable must not hold up the next outcomes' leases.
    for (const [endpointId, reason] of toDisable) {
      const disabling = this.#options.disable(endpointId, reason, at).catch((error: unknown) => {
        this.#options.logger.error({ err: error, endpoint: endpointId, reason }, 'webhook endpoint could not be disabled');
      }).finally(() => this.#disabling.delete(disabling));
      this.#disabling.add(disabling);
    }
  }
}
