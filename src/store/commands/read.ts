/** Commands as GET /vehicle-command/{id} and GET /vehicle-commands read them. */
import type { Selectable } from 'kysely';
import type { Db } from '../connection.js';
import { compiledQuery } from '../compiled-query.js';
import type { CommandsTable } from '../schema.js';

export type CommandRow = Selectable<CommandsTable>;

const commandById = compiledQuery(1, (db, id: string) => db.selectFrom('commands').selectAll().where('id', '=', id));

export async function findCommand(db: Db, id: string): Promise<CommandRow | undefined> {
  return (await commandById(db, id))[0];
}

export interface CommandPageQuery {
  readonly vin: string | undefined;
  /** Only commands created before this one (newest first: by created_at, then id). */
  readonly before: { readonly createdAt: number; readonly id: string } | undefined;
  readonly limit: number;
}

/** An application's commands, newest first (index commands_history, migration 0015). */
export function listApplicationCommands(db: Db, applicationId: string, query: CommandPageQuery) {
  let q = db.selectFrom('commands').select(['id', 'vin', 'command', 'status', 'detail', 'created_at', 'updated_at'])
    .where('application_id', '=', applicationId);
  if (query.vin !== undefined) q = q.where('vin', '=', query.vin);
  const { before } = query;
  if (before !== undefined) {
    q = q.where((eb) => eb.or([
      eb('created_at', '<', before.createdAt),
      eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
    ]));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}
