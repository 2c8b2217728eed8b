import type { Clock } from '../domain/clock.js';
import type { Keyring } from '../security/keyring.js';
import type { StoreConnection } from '../store/connection.js';
import type { WebhookSettings } from './webhook-settings.js';
import type { WebhookTransport } from './webhook-transport.js';

/** What the endpoint use cases and the dispatcher share; the composition root makes one. */
export interface WebhookDeps {
  readonly store: StoreConnection;
  /** Opens the endpoints' sealed signing secrets. */
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly transport: WebhookTransport;
  readonly settings: WebhookSettings;
}
