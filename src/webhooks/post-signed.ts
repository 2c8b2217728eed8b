/**
 * One signed POST of an event to an endpoint (Standard Webhooks headers: `webhook-id` is the
 * event's id, so a receiver can drop what it already has), and the attempt log's row for it.
 */
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { ServiceEvent } from '@telematics/contract';
import { formatIsoWithOffset } from '../domain/time.js';
import { timeOrderedId } from '../domain/time-ordered-id.js';
import { signatureHeader } from '../domain/webhook-signature.js';
import type { Keyring } from '../security/keyring.js';
import { webhookSecretSealingContext } from '../security/sealing-contexts.js';
import { openSecret } from '../security/secret-box.js';
import type { WebhookAttemptsTable } from '../store/schema.js';
import { insertWebhookAttempt } from '../store/webhooks/attempts.js';
import type { WebhookEndpointRow } from '../store/webhooks/endpoints.js';
import type { WebhookDeps } from './webhook-deps.js';
import type { TransportOptions } from './webhook-transport.js';

export interface SentTo {
  readonly status: number | undefined;
  readonly retryAfter: string | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
  readonly body: string | undefined;
}

export interface PostOptions {
  /** `auto`, `test` or `verification`, as the attempt log shows it. */
  readonly trigger: string;
  /** Bytes of the answer's body to read and return (the challenge); 0 discards it. */
  readonly readBytes?: number | undefined;
  /** The secrets that sign, when the caller has them opened already. */
  readonly secrets?: readonly string[] | undefined;
  /** The event's outbox position, for the attempt log (recovery asks by it). */
  readonly position?: number | undefined;
  /** The endpoint's lane, for a transport that holds posts (`queuedPerLane`). */
  readonly lane?: TransportOptions['lane'];
}

/** The secrets that sign now: the current one, and the previous one until it expires. */
export function signingSecrets(row: WebhookEndpointRow, keyring: Keyring, now: number): string[] {
  const context = webhookSecretSealingContext(row.id);
  const secrets = [openSecret(row.secret_sealed, context, keyring.master)];
  if (row.previous_secret_sealed !== null && Number(row.previous_secret_expires_at) > now) {
    secrets.push(openSecret(row.previous_secret_sealed, context, keyring.master));
  }
  return secrets;
}

/**
 * Signs and posts one event; answers what came back and the attempt log's row for it, which the
 * caller stores (the dispatcher stores many at once).
 */
export async function postSigned(deps: WebhookDeps, row: WebhookEndpointRow, event: ServiceEvent, { trigger, readBytes = 0, secrets, position, lane }: PostOptions) {
  const now = deps.clock.now();
  const body = JSON.stringify(event);
  const timestamp = Math.floor(now / 1000);
  const headers = {
    'webhook-id': event.id, 'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets ?? signingSecrets(row, deps.keyring, now), event.id, timestamp, body),
  };
  const t0 = performance.now();
  let sent: SentTo;
  try {
    const answer = await deps.transport.post(row.url, headers, body, { timeoutMs: deps.settings.timeoutMs, readBytes, lane });
    sent = { status: answer.status, retryAfter: answer.retryAfter, error: undefined, durationMs: answer.durationMs ?? Math.round(performance.now() - t0), body: answer.body };
  } catch (error) {
    const { kind, durationMs } = error as { kind?: string; durationMs?: number };
    sent = { status: undefined, retryAfter: undefined, error: kind ?? 'connection', durationMs: durationMs ?? Math.round(performance.now() - t0), body: undefined };
  }
  const attempt: Insertable<WebhookAttemptsTable> = {
    id: timeOrderedId(now, randomUUID), endpoint_id: row.id, event_id: event.id, event_type: event.type, event_position: position ?? null, trigger, attempted_at: now,
    duration_ms: sent.durationMs, status_code: sent.status ?? null, error: sent.error ?? null,
  };
  return { sent, attempt };
}

/** Signs and posts one event to an endpoint, and logs the attempt (never the receiver's body). */
export async function sendSigned(deps: WebhookDeps, row: WebhookEndpointRow, event: ServiceEvent, trigger: string, readBytes = 0): Promise<SentTo> {
  const { sent, attempt } = await postSigned(deps, row, event, { trigger, readBytes });
  await insertWebhookAttempt(deps.store.db, attempt);
  return sent;
}

/** An event of the webhook's own (`webhook.verification`, `webhook.ping`), made to be sent at `at`. */
export const webhookEvent = (type: 'webhook.verification' | 'webhook.ping', at: number, data: Record<string, unknown>): ServiceEvent =>
  ({ id: randomUUID(), type, timestamp: formatIsoWithOffset(at), data });
