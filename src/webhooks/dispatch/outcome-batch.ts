/** The dispatcher's outcomes, and one write's worth of them grouped into the statements that write it. */
import type { Insertable } from 'kysely';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from '../../store/schema.js';
import type { DeliverySettlement } from '../../store/webhooks/deliveries.js';

/** One attempt's end, a delivery settled without an attempt, or a stream moving past what it need not send. */
export interface DeliveryOutcome {
  readonly endpointId: string;
  /** A retried delivery's next state (it is leased to this process). */
  readonly settlement?: DeliverySettlement | undefined;
  /** A first attempt that failed: the delivery row its retries go by. */
  readonly retry?: Insertable<WebhookDeliveriesTable> | undefined;
  /** The stream lease (its token) the outcome belongs to (an attempt of its events, or its advance). */
  readonly stream?: string | undefined;
  /** The endpoint's stream has finished everything through `position` (lease `token`). */
  readonly advance?: { readonly token: string; readonly position: number } | undefined;
  readonly attempt: Insertable<WebhookAttemptsTable> | undefined;
  /** What the attempt says of the endpoint; undefined when there was no attempt. */
  readonly health: 'success' | 'failure' | 'gone' | undefined;
  readonly at: number;
}

/** What a batch's attempts say of one endpoint, in arrival order. */
export interface EndpointRun {
  /** At least one attempt succeeded. */
  anySuccess: boolean;
  /** The first failure after the last success, if any came after it. */
  failedFrom: number | undefined;
  /** An attempt was answered 410. */
  gone: boolean;
}

export interface OutcomeBatch {
  /** Retried deliveries that succeeded, by the status they were answered (one statement each). */
  readonly succeeded: Map<number, string[]>;
  /** Every other retried delivery's next state. */
  readonly others: DeliverySettlement[];
  readonly attempts: Insertable<WebhookAttemptsTable>[];
  /** Failed first attempts' delivery rows. */
  readonly retries: Insertable<WebhookDeliveriesTable>[];
  /** Per endpoint, the furthest position its latest stream lease has finished. */
  readonly advances: Map<string, { token: string; position: number }>;
  readonly runs: Map<string, EndpointRun>;
  /** The endpoints with an advance or a run, in id order: two instances writing at once lock their rows in the same order. */
  readonly endpoints: string[];
}

/** How a stream lease is named among the lost ones. */
export const leaseKey = (endpointId: string, token: string) => `${endpointId} ${token}`;

/** Groups outcomes for one write; the advances of `lost` leases (leaseKey) are left out. */
export function batchOutcomes(batch: readonly DeliveryOutcome[], lost: ReadonlySet<string>): OutcomeBatch {
  const succeeded = new Map<number, string[]>();
  const others: DeliverySettlement[] = [];
  const attempts: Insertable<WebhookAttemptsTable>[] = [];
  const retries: Insertable<WebhookDeliveriesTable>[] = [];
  const advances = new Map<string, { token: string; position: number }>();
  const runs = new Map<string, EndpointRun>();
  for (const outcome of batch) {
    const { settlement, advance } = outcome;
    if (settlement === undefined) {
      // A first attempt's outcome.
    } else if (settlement.status === 'succeeded' && typeof settlement.last_status === 'number') {
      const ids = succeeded.get(settlement.last_status) ?? [];
      ids.push(settlement.id);
      succeeded.set(settlement.last_status, ids);
    } else {
      others.push(settlement);
    }
    if (outcome.retry) retries.push(outcome.retry);
    if (advance !== undefined && !lost.has(leaseKey(outcome.endpointId, advance.token))) {
      // Leases of one endpoint end in order: the last one added is the one holding it.
      const last = advances.get(outcome.endpointId);
      if (last === undefined || last.token !== advance.token || last.position < advance.position) advances.set(outcome.endpointId, advance);
    }
    if (outcome.attempt) attempts.push(outcome.attempt);
    if (outcome.health === undefined) continue;
    const run = runs.get(outcome.endpointId) ?? { anySuccess: false, failedFrom: undefined, gone: false };
    // In arrival order: a success ends the run's streak, the next failure starts another.
    if (outcome.health === 'success') {
      run.anySuccess = true;
      run.failedFrom = undefined;
    } else {
      run.failedFrom ??= outcome.at;
      run.gone ||= outcome.health === 'gone';
    }
    runs.set(outcome.endpointId, run);
  }
  const endpoints = [...new Set([...runs.keys(), ...advances.keys()])].sort();
  return { succeeded, others, attempts, retries, advances, runs, endpoints };
}
