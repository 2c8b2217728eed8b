/**
 * What an application does with its webhook endpoints (OPERATIONS.md "Events"): register one
 * (it receives nothing until it has answered the signed verification challenge), list, read and
 * remove them, rotate a secret (both sign until the old one expires), send a test ping, recover
 * what it missed since an instant, read the attempt log. Another application's endpoint reads
 * as absent.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { EVENT_TYPES, type ServiceEvent } from '@telematics/contract';
import type { Clock } from '../domain/clock.js';
import { errors, ServiceError } from '../domain/errors.js';
import { mayConcern } from '../domain/event-visibility.js';
import { formatIsoWithOffset } from '../domain/time.js';
import { timeOrderedId } from '../domain/time-ordered-id.js';
import { checkWebhookUrl } from '../domain/webhook-url.js';
import { newWebhookSecret, signatureHeader } from '../domain/webhook-signature.js';
import type { Keyring } from '../security/keyring.js';
import { webhookSecretSealingContext } from '../security/sealing-contexts.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import type { Insertable } from 'kysely';
import type { StoreConnection } from '../store/connection.js';
import type { WebhookAttemptsTable } from '../store/schema.js';
import { lastEventPosition, numberCommittedEvents } from '../store/events-queries.js';
import { insertWebhookAttempt, listWebhookAttempts } from '../store/webhooks/attempts.js';
import { insertDeliveries } from '../store/webhooks/deliveries.js';
import {
  countWebhookEndpoints, deleteWebhookEndpoint, findWebhookEndpoint, insertWebhookEndpoint, listWebhookEndpoints, updateWebhookEndpoint, type WebhookEndpointRow,
} from '../store/webhooks/endpoints.js';
import { eventsPassedByStream, receivedEventIds, requeueDeliveries } from '../store/webhooks/recovery.js';
import type { WebhookSettings } from './webhook-settings.js';

/** Types an endpoint may subscribe to: every D12 type but the webhook's own, which every endpoint gets. */
export const SUBSCRIBABLE_TYPES: readonly string[] = EVENT_TYPES.filter((t) => !t.startsWith('webhook.'));

const MAX_ROTATION_OVERLAP_S = 604_800;
const DEFAULT_ROTATION_OVERLAP_S = 86_400;
const MAX_RECOVERED = 10_000;
const CHALLENGE_READ_BYTES = 4096;

/** One post's deadline (ms), bytes of the answer's body to return (0: none), and its endpoint's lane. */
export interface TransportOptions {
  readonly timeoutMs: number;
  readonly readBytes: number;
  /** At most `concurrency` of a lane's posts on the wire at once (a transport that holds posts). */
  readonly lane?: { readonly key: string; readonly concurrency: number } | undefined;
}

/** What came back; `durationMs`: its time on the wire, when the transport made it wait first. */
export interface TransportAnswer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string | undefined;
  readonly durationMs?: number | undefined;
}

/** What sending a webhook needs from the HTTP side (delivery/webhook-sender.ts). */
export interface WebhookTransport {
  /**
   * Posts of one lane (an endpoint) it takes beyond the lane's concurrency, holds, and starts
   * itself as soon as one of the lane's posts ends (absent: none; each post starts at once).
   */
  readonly queuedPerLane?: number | undefined;
  post(url: string, headers: Record<string, string>, body: string, options: TransportOptions): Promise<TransportAnswer>;
  /** The lane's posts it holds are not sent: they fail with kind `cancelled`. */
  cancel?(lane: string): void;
}

export interface WebhookDeps {
  readonly store: StoreConnection;
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly transport: WebhookTransport;
  readonly settings: WebhookSettings;
}

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

function parseEventTypes(value: unknown): string[] {
  const invalid = () => new ServiceError(errors.webhookEventTypesInvalid);
  if (!Array.isArray(value) || value.length === 0 || value.length > SUBSCRIBABLE_TYPES.length + 1) throw invalid();
  if (value.length === 1 && value[0] === '*') return ['*'];
  const types = [...new Set(value)];
  if (!types.every((t) => typeof t === 'string' && SUBSCRIBABLE_TYPES.includes(t))) throw invalid();
  return types as string[];
}

export function checkedUrl(value: unknown, settings: WebhookSettings): string {
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

/** The application's endpoint, or the catalogue's not-found (another application's included). */
export async function ownEndpoint(deps: Pick<WebhookDeps, 'store'>, owner: Owner, id: string): Promise<WebhookEndpointRow> {
  const row = /^[0-9a-f-]{36}$/.test(id) ? await findWebhookEndpoint(deps.store.db, id) : undefined;
  if (!row || row.application_id !== owner.applicationId) throw new ServiceError(errors.webhookEndpointNotFound);
  return row;
}

export async function listEndpoints(deps: Pick<WebhookDeps, 'store'>, owner: Owner) {
  return (await listWebhookEndpoints(deps.store.db, owner.applicationId)).map(endpointResource);
}

export async function removeEndpoint(deps: Pick<WebhookDeps, 'store'>, owner: Owner, id: string): Promise<void> {
  await ownEndpoint(deps, owner, id);
  await deps.store.db.transaction().execute((trx) => deleteWebhookEndpoint(trx, id));
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

export interface SentTo {
  readonly status: number | undefined;
  readonly retryAfter: string | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
  readonly body: string | undefined;
}

/** Signs and posts one event to an endpoint, and logs the attempt (never the receiver's body). */
export async function sendSigned(deps: WebhookDeps, row: WebhookEndpointRow, event: ServiceEvent, trigger: string, readBytes = 0): Promise<SentTo> {
  const { sent, attempt } = await postSigned(deps, row, event, { trigger, readBytes });
  await insertWebhookAttempt(deps.store.db, attempt);
  return sent;
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

const webhookEvent = (type: 'webhook.verification' | 'webhook.ping', at: number, data: Record<string, unknown>): ServiceEvent =>
  ({ id: randomUUID(), type, timestamp: formatIsoWithOffset(at), data });

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

/** `webhook.ping`, now: what the receiver answered and how fast (not its body). */
export async function pingEndpoint(deps: WebhookDeps, owner: Owner, id: string) {
  const row = await ownEndpoint(deps, owner, id);
  // A URL nobody has proven to be the application's gets the challenge, and nothing else.
  if (row.status !== 'enabled') throw new ServiceError(errors.webhookEndpointNotEnabled);
  const event = webhookEvent('webhook.ping', deps.clock.now(), { endpoint_id: row.id });
  const sent = await sendSigned(deps, row, event, 'test');
  return { event_id: event.id, status_code: sent.status ?? null, error: sent.error ?? null, duration_ms: sent.durationMs };
}

export async function attemptLog(deps: Pick<WebhookDeps, 'store'>, owner: Owner, id: string, limitText: string | undefined) {
  await ownEndpoint(deps, owner, id);
  const limit = limitText === undefined ? 100 : Number(limitText);
  if (!/^\d{1,3}$/.test(limitText ?? '100') || limit < 1 || limit > 500) throw new ServiceError(errors.eventLimitInvalid);
  return (await listWebhookAttempts(deps.store.db, id, limit)).map((a) => ({
    event_id: a.event_id, event_type: a.event_type, trigger: a.trigger, attempted: formatIsoWithOffset(Number(a.attempted_at)),
    duration_ms: Number(a.duration_ms), status_code: a.status_code === null ? null : Number(a.status_code), error: a.error,
  }));
}

/**
 * Queues again, oldest first, every event since `since` this endpoint may see and has not
 * received: failed and never attempted alike (events of a time it was disabled included). What
 * its stream has not reached yet is left to the stream.
 */
export async function recoverEndpoint(deps: WebhookDeps, owner: Owner, id: string, since: number) {
  const row = await ownEndpoint(deps, owner, id);
  if (row.status !== 'enabled') throw new ServiceError(errors.webhookEndpointNotEnabled);
  return queueMissedEvents(deps.store, row, since, deps.clock.now());
}

/** `recover` without the ownership check: the operator's `admin webhook replay` too. */
export async function queueMissedEvents(store: StoreConnection, row: WebhookEndpointRow, since: number, now: number): Promise<{ queued: number }> {
  await numberCommittedEvents(store);
  const types = JSON.parse(row.event_types) as string[];
  const viewer = { companyId: row.company_id, applicationId: row.application_id };
  const events = (await eventsPassedByStream(store.db, { id: row.id, companyId: row.company_id, types: types.includes('*') ? undefined : types }, since, MAX_RECOVERED))
    .filter((e) => mayConcern({ companyId: e.company_id, applicationId: e.application_id }, viewer));
  const received = await receivedEventIds(store.db, row.id, events);
  const missing = events.filter((e) => !received.has(e.id)).map((e) => e.id);
  await insertDeliveries(store.db, missing.map((eventId) => ({
    id: randomUUID(), endpoint_id: row.id, event_id: eventId, status: 'pending', attempts: 0, next_attempt_at: now,
    lease_owner: null, lease_until: null, last_status: null, last_error: null, created_at: now, updated_at: now,
  })));
  await requeueDeliveries(store.db, row.id, missing, now);
  return { queued: missing.length };
}
