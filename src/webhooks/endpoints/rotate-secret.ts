import { randomBytes } from 'node:crypto';
import { errors, ServiceError } from '../../domain/errors.js';
import { formatIsoWithOffset } from '../../domain/time.js';
import { newWebhookSecret } from '../../domain/webhook-signature.js';
import { webhookSecretSealingContext } from '../../security/sealing-contexts.js';
import { sealSecret } from '../../security/secret-box.js';
import { updateWebhookEndpoint } from '../../store/webhooks/endpoints.js';
import type { WebhookDeps } from '../webhook-deps.js';
import { ownEndpoint, type Owner } from './endpoint-resource.js';

const MAX_ROTATION_OVERLAP_S = 604_800;
const DEFAULT_ROTATION_OVERLAP_S = 86_400;

/** A new signing secret; the previous one also signs for `previous_secret_expires_in` seconds (0: at once no more). */
export async function rotateSecret(deps: WebhookDeps, owner: Owner, id: string, body: Readonly<Record<string, unknown>> | undefined) {
  const row = await ownEndpoint(deps, owner, id);
  const overlap = body?.['previous_secret_expires_in'] ?? DEFAULT_ROTATION_OVERLAP_S;
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > MAX_ROTATION_OVERLAP_S) {
    throw new ServiceError(errors.webhookRotationInvalid);
  }
  const secret = newWebhookSecret(randomBytes);
  const now = deps.clock.now();
  await updateWebhookEndpoint(deps.store.db, id, {
    secret_sealed: sealSecret(secret, webhookSecretSealingContext(id), deps.keyring.master),
    previous_secret_sealed: overlap === 0 ? null : row.secret_sealed,
    previous_secret_expires_at: overlap === 0 ? null : now + overlap * 1000,
    updated_at: now,
  });
  return { id, secret, previous_secret_expires: overlap === 0 ? null : formatIsoWithOffset(now + overlap * 1000) };
}
