import type { AuditDraft } from '../domain/audit-chain.js';
import { appendAuditWithEvents } from './event-appends.js';
import type { RowsStatement } from './group-commit.js';

/**
 * Audit drafts for a group commit (write-batcher.ts): one head lock per chain for all of them,
 * taken at the end of a shared transaction as event appends are (event-appends.ts).
 */
export const appendAuditRows: RowsStatement<AuditDraft, void> = async (db, drafts) => {
  await appendAuditWithEvents(db, drafts, Date.now());
  return drafts.map(() => undefined);
};
