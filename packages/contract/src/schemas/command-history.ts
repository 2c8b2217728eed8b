/** GET /vehicle-commands: an application's own commands, newest first. */
import { Type, type Static } from 'typebox';

export const MAX_COMMANDS_PAGE = 100;
export const DEFAULT_COMMANDS_PAGE = 20;

export const CommandHistoryQuery = Type.Object({
  vin: Type.Optional(Type.String({ description: 'Only the commands sent to this VIN' })),
  limit: Type.Optional(Type.String({ description: `1 to ${MAX_COMMANDS_PAGE}, default ${DEFAULT_COMMANDS_PAGE}` })),
  before: Type.Optional(Type.String({ description: 'A next_cursor of an earlier page: the commands created before it' })),
});
export type CommandHistoryQuery = Static<typeof CommandHistoryQuery>;

export const CommandHistoryItem = Type.Object({
  id: Type.String(),
  vin: Type.String(),
  command: Type.String(),
  status: Type.String({ description: 'Confirmation, Pending, Success or Error' }),
  detail: Type.Unknown({ description: 'As GET /vehicle-command/{command_id} answers it' }),
  created: Type.String({ description: 'YYYY-MM-DD HH:MM:SS at -03:00' }),
  updated: Type.String({ description: 'YYYY-MM-DD HH:MM:SS at -03:00' }),
});
export type CommandHistoryItem = Static<typeof CommandHistoryItem>;

export const CommandHistoryPage = Type.Object({
  data: Type.Array(CommandHistoryItem, { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for older commands; null when there are none' }),
});
export type CommandHistoryPage = Static<typeof CommandHistoryPage>;
