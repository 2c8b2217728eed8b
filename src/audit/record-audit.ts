/**
 * How use cases add to the audit trail. Inside a transaction of their own, `appendAuditEntries`
 * (store/audit-queries.ts) with the change; otherwise `recordAudit`, in the store's next group
 * commit with whatever else is written in that turn, resolved once committed.
 */
import type { Principal } from '../auth/authenticate-bearer.js';
import type { AuditActor, AuditDraft } from '../domain/audit-chain.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import { appendAuditRows } from '../store/audit-rows.js';
import type { Db, StoreConnection } from '../store/connection.js';
import { inTransaction } from '../store/in-transaction.js';
import { batchedRows } from '../store/write-batcher.js';

export function recordAudit(store: StoreConnection, draft: AuditDraft): Promise<void> {
  return batchedRows(store, appendAuditRows, draft);
}

/** The caller of an API request, as the trail names it: a person by e-mail, an application by its client id. */
export const callerActor = (principal: Principal): AuditActor =>
  (principal.user ? { kind: 'user', id: principal.user.email } : { kind: 'application', id: principal.clientId });

/** The service itself: a command's outcome, a worker's change. */
export const SERVICE_ACTOR: AuditActor = Object.freeze({ kind: 'system', id: 'service' });

/**
 * `work` and, when an actor is given, the audit entry its result names, in one transaction: the
 * change is never stored without its entry. The entry is the transaction's last write, so the
 * chain's head is locked only for the commit.
 */
export function withAudit<T>(db: Db, actor: AuditActor | undefined, entryOf: (result: T, actor: AuditActor) => AuditDraft, now: number, work: (trx: Db) => Promise<T>): Promise<T> {
  if (actor === undefined) return inTransaction(db, work);
  return inTransaction(db, async (trx) => {
    const result = await work(trx);
    await appendAuditEntries(trx, [entryOf(result, actor)], now);
    return result;
  });
}

/** The entry of a company's change that succeeded: `<thing>.<act>` on a target. */
export const changeEntry = (companyId: string, action: string, target: string) => (_: unknown, actor: AuditActor): AuditDraft =>
  ({ companyId, actor, action, target, outcome: 'success' });
