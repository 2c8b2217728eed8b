/** GET /audit: a company's chain, newest first, filtered as the query asks. */
import { DEFAULT_AUDIT_PAGE, MAX_AUDIT_PAGE, type AuditPage, type AuditQuery } from '@telematics/contract';
import { chainOf, type AuditEntry } from '../domain/audit-chain.js';
import { errors, ServiceError } from '../domain/errors.js';
import { ACCEPTED_DATE_FORMATS, formatIsoWithOffset, parseInputDate } from '../domain/time.js';
import type { Db } from '../store/connection.js';
import { listAuditEntries, type AuditFilter } from '../store/audit-queries.js';

const MAX_FILTER_TEXT = 320;

function instant(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const parsed = parseInputDate(text);
  if (!parsed) throw new ServiceError(errors.invalidDate, { field, formats: ACCEPTED_DATE_FORMATS });
  return parsed.epochMs;
}

function filterText(text: string | undefined, field: string): string | undefined {
  if (text === undefined) return undefined;
  if (text === '' || text.length > MAX_FILTER_TEXT) throw new ServiceError(errors.invalidRequest, { reason: `${field} must be 1 to ${MAX_FILTER_TEXT} characters` });
  return text;
}

export function parseAuditQuery(query: AuditQuery): AuditFilter {
  let limit = DEFAULT_AUDIT_PAGE;
  if (query.limit !== undefined) {
    if (!/^\d{1,3}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_AUDIT_PAGE) throw new ServiceError(errors.auditLimitInvalid);
    limit = Number(query.limit);
  }
  let beforeSeq: number | undefined;
  if (query.before !== undefined) {
    if (!/^[1-9]\d{0,15}$/.test(query.before)) throw new ServiceError(errors.auditCursorInvalid);
    beforeSeq = Number(query.before);
  }
  return {
    limit, beforeSeq, action: filterText(query.action, 'action'), actorId: filterText(query.actor, 'actor'), target: filterText(query.target, 'target'),
    since: instant(query.since, 'since'), until: instant(query.until, 'until'),
  };
}

export const auditEntryView = (e: AuditEntry): AuditPage['data'][number] => ({
  seq: e.seq, at: formatIsoWithOffset(e.at), actor: { kind: e.actorKind, id: e.actorId }, action: e.action, target: e.target, outcome: e.outcome,
  details: JSON.parse(e.details) as Record<string, unknown>, prev_hash: e.prevHash, hash: e.hash,
});

export async function readAuditTrail(db: Db, companyId: string, filter: AuditFilter): Promise<AuditPage> {
  const { entries, hasMore } = await listAuditEntries(db, chainOf(companyId), filter);
  const last = entries[entries.length - 1];
  return { data: entries.map(auditEntryView), next_cursor: hasMore && last ? String(last.seq) : null, has_more: hasMore };
}
