/**
 * What the dispatcher's parts share: each endpoint's queue of sends waiting for a slot, and the
 * streams this instance holds.
 */
import type { ServiceEvent } from '@telematics/contract';
import type { DueDelivery } from '../../store/webhooks/deliveries.js';
import type { WebhookEndpointRow } from '../../store/webhooks/endpoints.js';
import type { StreamWindow } from './stream-window.js';

/** This instance's hold on an endpoint's stream: one lease, from taking it until losing or releasing it. */
export interface HeldStream {
  readonly endpointId: string;
  /** The lease's holder as the store has it, `owner:n`: the same for the streams taken together. */
  readonly token: string;
  leaseUntil: number;
  readonly window: StreamWindow;
  /** The position the last advance handed to the outcome writer. */
  advanced: number;
  reading: Promise<void> | undefined;
  /** Let go of: nothing more is read, started or advanced for it here. */
  lost: boolean;
}

/** Something to send: a claimed delivery row (a retry), or an event of the endpoint's stream. */
export type QueuedSend =
  | { readonly kind: 'retry'; readonly delivery: DueDelivery; readonly position: number; readonly event: ServiceEvent; readonly leaseUntil: number }
  | { readonly kind: 'stream'; readonly stream: HeldStream; readonly position: number; readonly event: ServiceEvent };

/** One endpoint's sends waiting for a slot, and how many are under way. */
export interface EndpointQueue {
  row: WebhookEndpointRow;
  secrets: readonly string[];
  readonly waiting: QueuedSend[];
  running: number;
  /**
   * When the endpoint answered 410 or was disabled here: nothing more starts or is claimed for it
   * until it is enabled again after that instant (verified anew). The queue stays, so a claim
   * cannot slip in before the disable is written.
   */
  stoppedAt: number | undefined;
}

/** How many of the queue's waiting sends are of this kind. */
export function waitingOf(queue: EndpointQueue, kind: QueuedSend['kind']): number {
  return queue.waiting.reduce((n, w) => n + (w.kind === kind ? 1 : 0), 0);
}

/**
 * A lease outlives the queue's worst case (each attempt ahead taking the whole deadline) by at
 * least this much, and by the deadline again when that is longer: only a dead holder lets it
 * lapse, not a slow settle.
 */
export const MIN_LEASE_MARGIN_MS = 5_000;
