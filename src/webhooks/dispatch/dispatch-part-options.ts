import type { Logger } from 'pino';
import type { WebhookDeps } from '../webhook-deps.js';
import type { DeliveryOutcomes } from './delivery-outcomes.js';
import type { SendSlots } from './send-slots.js';

/** What the dispatcher hands each of its parts (held streams, retry claims): the same for both. */
export interface DispatchPartOptions {
  readonly deps: WebhookDeps;
  /** This dispatcher, as the store's leases name it. */
  readonly owner: string;
  readonly logger: Logger;
  readonly slots: SendSlots;
  readonly outcomes: DeliveryOutcomes;
  readonly isClosed: () => boolean;
}
