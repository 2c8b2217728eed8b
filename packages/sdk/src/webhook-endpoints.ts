/** /webhook-endpoints: the application's webhook receivers (register, verify, rotate, test, replay). */
import type { Transport } from './transport.js';
import type {
  RequestOptions, WebhookAttempt, WebhookEndpoint, WebhookEndpointCreate, WebhookEndpointCreated, WebhookEndpointVerification, WebhookSecretRotation,
  WebhookTestDelivery,
} from './types.js';
import { dateText } from './dates.js';

const path = (id: string, rest = '') => `/webhook-endpoints/${encodeURIComponent(id)}${rest}`;

export class WebhookEndpoints {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** Registers a receiver; the answer's `secret` is shown only here. Not retried (it would register twice). */
  async create(endpoint: WebhookEndpointCreate, options: RequestOptions = {}): Promise<WebhookEndpointCreated> {
    return (await this.transport.json<WebhookEndpointCreated>({ method: 'POST', path: '/webhook-endpoints', json: endpoint, retry: 'never', ...options })).data;
  }

  async list(options: RequestOptions = {}): Promise<WebhookEndpoint[]> {
    return (await this.transport.json<WebhookEndpoint[]>({ method: 'GET', path: '/webhook-endpoints', retry: 'read', ...options })).data;
  }

  async get(id: string, options: RequestOptions = {}): Promise<WebhookEndpoint> {
    return (await this.transport.json<WebhookEndpoint>({ method: 'GET', path: path(id), retry: 'read', ...options })).data;
  }

  /** Not retried: a retry after a lost answer would be told 404 for an endpoint it did delete. */
  async delete(id: string, options: RequestOptions = {}): Promise<void> {
    await this.transport.json<undefined>({ method: 'DELETE', path: path(id), retry: 'never', ...options });
  }

  /** Sends the verification challenge again, now. */
  async verify(id: string, options: RequestOptions = {}): Promise<WebhookEndpointVerification> {
    return (await this.transport.json<WebhookEndpointVerification>({ method: 'POST', path: path(id, '/verify'), retry: 'never', ...options })).data;
  }

  /** A new secret; the old one keeps signing too for `previousSecretExpiresIn` seconds (default 24 h). */
  async rotateSecret(id: string, rotation: { readonly previousSecretExpiresIn?: number } = {}, options: RequestOptions = {}): Promise<WebhookSecretRotation> {
    const json = rotation.previousSecretExpiresIn === undefined ? {} : { previous_secret_expires_in: rotation.previousSecretExpiresIn };
    return (await this.transport.json<WebhookSecretRotation>({ method: 'POST', path: path(id, '/rotate-secret'), json, retry: 'never', ...options })).data;
  }

  /** Sends a `webhook.ping` now and answers how the receiver answered. */
  async test(id: string, options: RequestOptions = {}): Promise<WebhookTestDelivery> {
    return (await this.transport.json<WebhookTestDelivery>({ method: 'POST', path: path(id, '/test'), retry: 'never', ...options })).data;
  }

  /** Queues again the events since `since` that the endpoint did not receive. */
  async recover(id: string, since: string | Date, options: RequestOptions = {}): Promise<{ queued: number }> {
    return (await this.transport.json<{ queued: number }>({ method: 'POST', path: path(id, '/recover'), json: { since: dateText(since) }, retry: 'never', ...options })).data;
  }

  /** The latest delivery attempts, newest first. */
  async attempts(id: string, query: { readonly limit?: number } = {}, options: RequestOptions = {}): Promise<WebhookAttempt[]> {
    return (await this.transport.json<WebhookAttempt[]>({ method: 'GET', path: path(id, '/attempts'), query: { limit: query.limit }, retry: 'read', ...options })).data;
  }
}
