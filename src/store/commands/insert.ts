/** New commands, as POST /vehicle-command writes them. */
import type { Insertable } from 'kysely';
import type { Db } from '../connection.js';
import { compiledRowsQuery } from '../compiled-query.js';
import type { CommandsTable } from '../schema.js';
import type { RowsStatement } from '../group-commit.js';

export async function insertCommand(db: Db, row: Insertable<CommandsTable>): Promise<void> {
  await db.insertInto('commands').values(row).execute();
}

/** The columns of a command created Pending (D4 step 8), as POST /vehicle-command writes it. */
const NEW_COMMAND_COLUMNS = [
  'id', 'application_id', 'company_id', 'vin', 'oem', 'command', 'status', 'detail', 'created_at', 'updated_at', 'deadline_at', 'code_attempts', 'poll_attempts',
] as const;
export type NewCommandRow = Required<Pick<Insertable<CommandsTable>, typeof NEW_COMMAND_COLUMNS[number]>>;

const insertNewCommands = compiledRowsQuery<NewCommandRow, never>(
  NEW_COMMAND_COLUMNS.length,
  (row) => NEW_COMMAND_COLUMNS.map((column) => row[column]),
  (db, rows) => db.insertInto('commands').values(rows.map((values) => Object.fromEntries(NEW_COMMAND_COLUMNS.map((column, i) => [column, values[i]])) as NewCommandRow)),
);

/** New commands for a group commit's rows: one statement for all of them, compiled once per row count. */
export const insertCommands: RowsStatement<NewCommandRow, void> = async (db, rows) => {
  await insertNewCommands(db, rows);
  return rows.map(() => undefined);
};
