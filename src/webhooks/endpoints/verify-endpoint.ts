import { randomBytes } from 'node:crypto';
import { errors, ServiceError } from '../../domain/errors.js';
import { lastEventPosition } from '../../store/events-queries.js';
import { findWebhookEndpoint, updateWebhookEndpoint, type WebhookEndpointRow } from '../../store/webhooks/endpoints.js';
import { sendSigned, webhookEvent, type SentTo } from '../post-signed.js';
import type { WebhookDeps } from '../webhook-deps.js';
import { endpointResource } from './endpoint-resource.js';

const CHALLENGE_READ_BYTES = 4096;

function challengeAnswered(sent: SentTo, challenge: string): boolean {
  if (sent.status === undefined || sent.status < 200 || sent.status > 299 || sent.body === undefined) return false;
  try {
    const parsed: unknown = JSON.parse(sent.body);
    return typeof parsed === 'object' && parsed !== null && (parsed as { challenge?: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}

/**
 * Sends the signed `webhook.verification` challenge; an endpoint that echoes it is enabled (again,
 * if it was disabled), one that does not stays as it was. Proves the receiver is the
 * application's, so the service cannot be aimed at someone else's URL.
 */
export async function verifyEndpoint(deps: WebhookDeps, row: WebhookEndpointRow) {
  // Only the operator lifts the operator's disable (`admin webhook enable`).
  if (row.disabled_reason === 'operator') throw new ServiceError(errors.webhookEndpointDisabledByOperator);
  const challenge = randomBytes(24).toString('base64url');
  const now = deps.clock.now();
  const sent = await sendSigned(deps, row, webhookEvent('webhook.verification', now, { endpoint_id: row.id, challenge }), 'verification', CHALLENGE_READ_BYTES);
  const verified = challengeAnswered(sent, challenge);
  // Verified again while enabled, it keeps its stream: events not yet sent are still its.
  if (verified && row.status !== 'enabled') {
    // Its stream starts after what is numbered now, and takes nothing created before this
    // instant: an event created later is numbered later, so none is skipped.
    const position = await lastEventPosition(deps.store);
    const at = deps.clock.now();
    await updateWebhookEndpoint(deps.store.db, row.id, {
      status: 'enabled', disabled_reason: null, failing_since: null, enabled_at: at, updated_at: at,
      stream_position: position, stream_owner: null, stream_lease_until: null,
    });
  }
  const after = (await findWebhookEndpoint(deps.store.db, row.id)) ?? row;
  return { ...endpointResource(after), verification: { verified, status_code: sent.status ?? null, error: sent.error ?? null } };
}
