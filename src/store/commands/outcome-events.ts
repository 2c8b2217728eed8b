/**
 * What an outcome's update returns: enough for its event. Every outcome (a result, an automaker's
 * refusal at initiation, a timeout) is written by finish.ts and expire.ts and nowhere else, and
 * each appends its `command.succeeded`/`command.failed` event in the same transaction.
 */
import type { Db } from '../connection.js';
import { commandOutcomeEvent, type CommandOutcome } from '../../domain/events.js';
import { appendEvents } from '../event-appends.js';

export const OUTCOME_COLUMNS = ['id', 'application_id', 'company_id', 'vin', 'command', 'status', 'detail', 'updated_at'] as const;

export async function appendOutcomeEvents(db: Db, rows: readonly CommandOutcome[], now: number): Promise<void> {
  await appendEvents(db, rows.map((r) => commandOutcomeEvent({ ...r, updated_at: Number(r.updated_at) })), now);
}
