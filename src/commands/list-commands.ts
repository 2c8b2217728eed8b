/**
 * GET /vehicle-commands: the application's own commands, newest first, as GET /vehicle-command
 * reads each one, plus when it was created. The cursor is the id of the last command of a page,
 * so a page boundary holds even when commands share a creation instant.
 */
import { DEFAULT_COMMANDS_PAGE, MAX_COMMANDS_PAGE, type CommandHistoryPage, type CommandHistoryQuery } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { formatSpacedLocal } from '../domain/time.js';
import { isValidVin } from '../domain/vin.js';
import type { Db } from '../store/connection.js';
import { findCommand, listApplicationCommands } from '../store/commands/read.js';
import { COMMAND_ID } from './read-command.js';

export async function listCommands(db: Db, applicationId: string, query: CommandHistoryQuery): Promise<CommandHistoryPage> {
  if (query.vin !== undefined && !isValidVin(query.vin)) throw new ServiceError(errors.eventVinInvalid);
  let limit = DEFAULT_COMMANDS_PAGE;
  if (query.limit !== undefined) {
    if (!/^\d{1,3}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_COMMANDS_PAGE) throw new ServiceError(errors.commandLimitInvalid);
    limit = Number(query.limit);
  }
  let before: { createdAt: number; id: string } | undefined;
  if (query.before !== undefined) {
    const row = COMMAND_ID.test(query.before) ? await findCommand(db, query.before.toLowerCase()) : undefined;
    // Another application's command is no cursor of this one: it must not tell that it exists.
    if (!row || row.application_id !== applicationId) throw new ServiceError(errors.commandCursorInvalid);
    before = { createdAt: Number(row.created_at), id: row.id };
  }
  // One more than asked tells whether there is a next page without a second query.
  const rows = await listApplicationCommands(db, applicationId, { vin: query.vin, before, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    data: page.map((row) => ({
      id: row.id, vin: row.vin, command: row.command, status: row.status, detail: JSON.parse(row.detail) as unknown,
      created: formatSpacedLocal(Number(row.created_at)), updated: formatSpacedLocal(Number(row.updated_at)),
    })),
    next_cursor: rows.length > limit ? page[page.length - 1]!.id : null,
  };
}
