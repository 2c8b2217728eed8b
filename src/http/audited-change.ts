import type { FastifyRequest } from 'fastify';
import { callerActor, recordAudit } from '../audit/record-audit.js';
import type { StoreConnection } from '../store/connection.js';
import { principalOf } from './authenticate-hook.js';

/**
 * A company's change made through the API, then its audit entry (who: the request's caller).
 * `targetOf` names what changed from the change's answer (a new geofence's id). A change that
 * fails records nothing: it changed nothing.
 */
export async function auditedChange<T>(
  store: StoreConnection, request: FastifyRequest, action: string, targetOf: (result: T) => string | null, change: () => Promise<T>,
): Promise<T> {
  const result = await change();
  const principal = principalOf(request);
  await recordAudit(store, { companyId: principal.companyId, actor: callerActor(principal), action, target: targetOf(result), outcome: 'success' });
  return result;
}
