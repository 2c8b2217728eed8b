/**
 * Registering, listing and removing an application's webhook endpoints (OPERATIONS.md
 * "Events"). A new endpoint receives nothing until it has answered the signed verification
 * challenge (verify-endpoint.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { EVENT_TYPES } from '@telematics/contract';
import { errors, ServiceError } from '../../domain/errors.js';
import { checkWebhookUrl } from '../../domain/webhook-url.js';
import { newWebhookSecret } from '../../domain/webhook-signature.js';
import { webhookSecretSealingContext } from '../../security/sealing-contexts.js';
import { sealSecret } from '../../security/secret-box.js';
import { countWebhookEndpoints, deleteWebhookEndpoint, insertWebhookEndpoint, listWebhookEndpoints } from '../../store/webhooks/endpoints.js';
import type { WebhookDeps } from '../webhook-deps.js';
import type { WebhookSettings } from '../webhook-settings.js';
import { endpointResource, ownEndpoint, type Owner } from './endpoint-resource.js';

/** Types an endpoint may subscribe to: every D12 type but the webhook's own, which every endpoint gets. */
export const SUBSCRIBABLE_TYPES: readonly string[] = EVENT_TYPES.filter((t) => !t.startsWith('webhook.'));

function parseEventTypes(value: unknown): string[] {
  const invalid = () => new ServiceError(errors.webhookEventTypesInvalid);
  if (!Array.isArray(value) || value.length === 0 || value.length > SUBSCRIBABLE_TYPES.length + 1) throw invalid();
  if (value.length === 1 && value[0] === '*') return ['*'];
  const types = [...new Set(value)];
  if (!types.every((t) => typeof t === 'string' && SUBSCRIBABLE_TYPES.includes(t))) throw invalid();
  return types as string[];
}

function checkedUrl(value: unknown, settings: WebhookSettings): string {
  if (typeof value !== 'string') throw new ServiceError(errors.webhookUrlInvalid);
  const check = checkWebhookUrl(value, settings.allowList, settings.hasAllowList);
  if (!check.ok) throw check.reason === 'refused' ? new ServiceError(errors.webhookUrlRefused, { reason: check.detail }) : new ServiceError(errors.webhookUrlInvalid);
  return check.url.href;
}

export async function createEndpoint(deps: WebhookDeps, owner: Owner, body: Readonly<Record<string, unknown>>) {
  const url = checkedUrl(body['url'], deps.settings);
  const eventTypes = parseEventTypes(body['event_types']);
  const max = deps.settings.maxEndpointsPerApplication;
  if ((await countWebhookEndpoints(deps.store.db, owner.applicationId)) >= max) throw new ServiceError(errors.tooManyWebhookEndpoints, { max: String(max) });
  const id = randomUUID();
  const secret = newWebhookSecret(randomBytes);
  const now = deps.clock.now();
  const row = {
    id, application_id: owner.applicationId, company_id: owner.companyId, url, event_types: JSON.stringify(eventTypes),
    status: 'pending_verification', disabled_reason: null, secret_sealed: sealSecret(secret, webhookSecretSealingContext(id), deps.keyring.master),
    previous_secret_sealed: null, previous_secret_expires_at: null, failing_since: null, enabled_at: null, created_at: now, updated_at: now,
    stream_position: 0, stream_owner: null, stream_lease_until: null,
  };
  await insertWebhookEndpoint(deps.store.db, row);
  return { ...endpointResource(row), secret };
}

export async function listEndpoints(deps: Pick<WebhookDeps, 'store'>, owner: Owner) {
  return (await listWebhookEndpoints(deps.store.db, owner.applicationId)).map(endpointResource);
}

export async function removeEndpoint(deps: Pick<WebhookDeps, 'store'>, owner: Owner, id: string): Promise<void> {
  await ownEndpoint(deps, owner, id);
  await deps.store.db.transaction().execute((trx) => deleteWebhookEndpoint(trx, id));
}
