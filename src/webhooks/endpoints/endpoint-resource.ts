/**
 * An application's own webhook endpoint as its use cases find and show it. Another
 * application's endpoint reads as absent.
 */
import { errors, ServiceError } from '../../domain/errors.js';
import { formatIsoWithOffset } from '../../domain/time.js';
import { findWebhookEndpoint, type WebhookEndpointRow } from '../../store/webhooks/endpoints.js';
import type { WebhookDeps } from '../webhook-deps.js';

/** Whose endpoints these are: the caller's application, in its company. */
export interface Owner {
  readonly companyId: string;
  readonly applicationId: string;
}

/** An endpoint as the API shows it (never its secret, but when it is made). */
export function endpointResource(row: WebhookEndpointRow) {
  return {
    id: row.id, url: row.url, event_types: JSON.parse(row.event_types) as string[], status: row.status,
    disabled_reason: row.disabled_reason, created: formatIsoWithOffset(Number(row.created_at)),
  };
}

/** The application's endpoint, or the catalogue's not-found (another application's included). */
export async function ownEndpoint(deps: Pick<WebhookDeps, 'store'>, owner: Owner, id: string): Promise<WebhookEndpointRow> {
  const row = /^[0-9a-f-]{36}$/.test(id) ? await findWebhookEndpoint(deps.store.db, id) : undefined;
  if (!row || row.application_id !== owner.applicationId) throw new ServiceError(errors.webhookEndpointNotFound);
  return row;
}
