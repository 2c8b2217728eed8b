import { errors, ServiceError } from '../../domain/errors.js';
import { sendSigned, webhookEvent } from '../post-signed.js';
import type { WebhookDeps } from '../webhook-deps.js';
import { ownEndpoint, type Owner } from './endpoint-resource.js';

/** `webhook.ping`, now: what the receiver answered and how fast (not its body). */
export async function pingEndpoint(deps: WebhookDeps, owner: Owner, id: string) {
  const row = await ownEndpoint(deps, owner, id);
  // A URL nobody has proven to be the application's gets the challenge, and nothing else.
  if (row.status !== 'enabled') throw new ServiceError(errors.webhookEndpointNotEnabled);
  const event = webhookEvent('webhook.ping', deps.clock.now(), { endpoint_id: row.id });
  const sent = await sendSigned(deps, row, event, 'test');
  return { event_id: event.id, status_code: sent.status ?? null, error: sent.error ?? null, duration_ms: sent.durationMs };
}
