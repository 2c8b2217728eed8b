/**
 * What an outcome's update returns: enough for its event. Every outcome (a result, an automaker's
 * refusal at initiation, a timeout) is written by finish.ts and expire.ts and nowhere else, and
 * each appends its `command.succeeded`/`command.failed` event in the same transaction.
 */
import type { Db } from '../connection.js';
import { commandOutcomeEvent, type CommandOutcome } from '../../domain/events.js';
import { appendAuditWithEvents, appendEvents } from '../event-appends.js';

export const OUTCOME_COLUMNS = ['id', 'application_id', 'company_id', 'vin', 'command', 'status', 'detail', 'updated_at'] as const;

export async function appendOutcomeEvents(db: Db, rows: readonly CommandOutcome[], now: number): Promise<void> {
  await appendEvents(db, rows.map((r) => commandOutcomeEvent({ ...r, updated_at: Number(r.updated_at) })), now);
  // The audit trail's record of how each command ended, in the same transaction as the outcome.
  await appendAuditWithEvents(db, rows.map((r) => ({
    companyId: r.company_id, actor: { kind: 'system', id: 'service' }, action: 'command.finished', target: r.vin, outcome: r.status,
    details: { command_id: r.id, command: r.command, application_id: r.application_id, detail: typeof r.detail === 'string' ? safeJson(r.detail) : r.detail },
  })), now);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
