import { errors, ServiceError } from '../../domain/errors.js';
import { formatIsoWithOffset } from '../../domain/time.js';
import { listWebhookAttempts } from '../../store/webhooks/attempts.js';
import type { WebhookDeps } from '../webhook-deps.js';
import { ownEndpoint, type Owner } from './endpoint-resource.js';

/** The endpoint's attempt log, newest first: `limitText` 1 to 500 (100 when absent). */
export async function attemptLog(deps: Pick<WebhookDeps, 'store'>, owner: Owner, id: string, limitText: string | undefined) {
  await ownEndpoint(deps, owner, id);
  const limit = limitText === undefined ? 100 : Number(limitText);
  if (!/^\d{1,3}$/.test(limitText ?? '100') || limit < 1 || limit > 500) throw new ServiceError(errors.eventLimitInvalid);
  return (await listWebhookAttempts(deps.store.db, id, limit)).map((a) => ({
    event_id: a.event_id, event_type: a.event_type, trigger: a.trigger, attempted: formatIsoWithOffset(Number(a.attempted_at)),
    duration_ms: Number(a.duration_ms), status_code: a.status_code === null ? null : Number(a.status_code), error: a.error,
  }));
}
