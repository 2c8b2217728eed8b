/**
 * `Idempotency-Key` on POST /vehicle-command (IETF draft-ietf-httpapi-idempotency-key-header,
 * Stripe's semantics). Optional. With a key, the first request runs and its response (200 or
 * 502) is kept 24 h for the application; a retry with the same key and the same vin, command and
 * code gets that response again, marked `Idempotent-Replayed: true`, and nothing new reaches the
 * automaker. The same key with another request: 422. While the first is still running: 409.
 * A request refused with a 4xx (or failing with a 5xx) keeps nothing: a corrected retry may
 * reuse the key. Keys belong to the application: two applications may use the same key.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Principal } from '../auth/authenticate-bearer.js';
import type { Clock } from '../domain/clock.js';
import { creationStatusCode } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { idempotencySealingContext } from '../security/sealing-contexts.js';
import type { StoreConnection } from '../store/connection.js';
import {
  answerIdempotencyKey, claimIdempotencyKey, deleteIdempotencyKeysBefore, forgetIdempotencyKey, releaseIdempotencyKey,
} from '../store/idempotency-queries.js';
import { batchedWrite } from '../store/write-batcher.js';
import type { PeriodicWorker } from '../workers/periodic.js';
import { checkSignedRequest, createCommand, type CommandServiceDeps, type CreationLog, type CreationResponse } from './create-command.js';

/** How long a key and its response are kept. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;
/**
 * An unanswered key older than this belongs to a request that died with its process (initiation
 * is bounded by 10 s): a retry then runs afresh. The only case where a retry may reach the
 * automaker twice; SECURITY.md names it.
 */
export const IDEMPOTENCY_ABANDONED_MS = 60_000;
/** Printable ASCII without spaces at the ends, as the draft's sf-string allows, at most 255. */
const KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

export interface CreationResult {
  readonly body: CreationResponse;
  /** True when this is the stored answer of an earlier request with the same key. */
  readonly replayed: boolean;
}

/** What the request asks for: only the fields the service reads, so key order and extras do not matter. */
function fingerprintOf(body: unknown): string {
  const { vin, command, code } = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  return createHash('sha256').update(JSON.stringify([vin ?? null, command ?? null, code ?? null])).digest('hex');
}

export async function createCommandIdempotently(
  deps: CommandServiceDeps, principal: Principal, body: unknown, signature: unknown, clock: Clock, key: string | string[] | undefined, log?: CreationLog,
): Promise<CreationResult> {
  if (key !== undefined && (typeof key !== 'string' || !KEY_PATTERN.test(key))) throw new ServiceError(errors.idempotencyKeyInvalid);
  // Before any kept answer is looked at: a replay must pass every check the original passed up to
  // and including the signature, or a token holder without the sign-secret could read stored
  // answers (a first step's confirmation code among them).
  const request = checkSignedRequest(deps, principal, body, signature);
  if (key === undefined) return { body: await createCommand(deps, principal, request, clock, log), replayed: false };

  const appId = principal.applicationId;
  const fingerprint = fingerprintOf(body);
  const claimedAt = clock.now();
  const window = { expiredBefore: claimedAt - IDEMPOTENCY_KEY_TTL_MS, abandonedBefore: claimedAt - IDEMPOTENCY_ABANDONED_MS };
  const claim = await batchedWrite(deps.store, (trx) => claimIdempotencyKey(trx, appId, key, fingerprint, claimedAt, window));
  if (claim !== true) {
    if (claim.fingerprint !== fingerprint) throw new ServiceError(errors.idempotencyKeyReused);
    if (claim.status_code === null || claim.response === null) throw new ServiceError(errors.idempotencyKeyInFlight, {}, 1);
    const stored = openKept(claim.response, idempotencySealingContext(appId, key), deps);
    if (stored !== undefined) return { body: stored, replayed: true };
    // Sealed under a master key no longer listed (retired without `keys reseal`): the answer is
    // lost, so the key is forgotten and this request runs as a new one.
    await batchedWrite(deps.store, (trx) => forgetIdempotencyKey(trx, appId, key, claim.created_at));
    return createCommandIdempotently(deps, principal, body, signature, clock, key, log);
  }

  let answer: CreationResponse;
  try {
    answer = await createCommand(deps, principal, request, clock, log);
  } catch (error) {
    // If even this fails, the key counts as abandoned after a minute: the original error matters more.
    await batchedWrite(deps.store, (trx) => releaseIdempotencyKey(trx, appId, key, claimedAt)).catch(() => undefined);
    throw error;
  }
  const sealed = sealSecret(JSON.stringify(answer), idempotencySealingContext(appId, key), deps.keyring.master);
  // The kept status is the interface's for that answer (documentation for whoever reads the
  // table); a replay takes it from the answer itself.
  await batchedWrite(deps.store, (trx) => answerIdempotencyKey(trx, appId, key, claimedAt, creationStatusCode(answer), sealed));
  return { body: answer, replayed: false };
}

function openKept(sealed: string, context: string, deps: CommandServiceDeps): CreationResponse | undefined {
  try {
    return JSON.parse(openSecret(sealed, context, deps.keyring.master)) as CreationResponse;
  } catch {
    return undefined;
  }
}

/** Keys live 24 h: dropping them within the hour after is plenty. */
const SWEEP_INTERVAL_MS = 3_600_000;

/** Drops keys past their 24 h: at start, then every hour (a worker for the periodic loop). */
export function idempotencyKeyExpiryWorker(store: StoreConnection, clock: Clock, logger: Logger): PeriodicWorker {
  return {
    name: 'idempotency key expiry',
    intervalMs: SWEEP_INTERVAL_MS,
    async runOnce() {
      const deleted = await deleteIdempotencyKeysBefore(store.db, clock.now() - IDEMPOTENCY_KEY_TTL_MS);
      if (deleted > 0) logger.info({ deleted }, 'expired idempotency keys dropped');
    },
  };
}
