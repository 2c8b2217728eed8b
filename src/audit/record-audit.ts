/**
 * How use cases add to the audit trail. Inside a transaction of their own, `appendAuditEntries`
 * (store/audit-queries.ts) with the change; otherwise `recordAudit`, in the store's next group
 * commit with whatever else is written in that turn, resolved once committed.
 */
import type { Principal } from '../auth/authenticate-bearer.js';
import type { AuditActor, AuditDraft } from '../domain/audit-chain.js';
import { appendAuditRows } from '../store/audit-rows.js';
import type { StoreConnection } from '../store/connection.js';
import { batchedRows } from '../store/write-batcher.js';

export function recordAudit(store: StoreConnection, draft: AuditDraft): Promise<void> {
  return batchedRows(store, appendAuditRows, draft);
}

/** The caller of an API request, as the trail names it: an application by its client id. */
export const callerActor = (principal: Principal): AuditActor => ({ kind: 'application', id: principal.clientId });

/** The service itself: a command's outcome, a worker's change. */
export const SERVICE_ACTOR: AuditActor = Object.freeze({ kind: 'system', id: 'service' });
