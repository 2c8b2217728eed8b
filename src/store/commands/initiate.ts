/** The automaker accepted a command: its status URL and first poll. */
import { sql } from 'kysely';
import { compiledRowsQuery } from '../compiled-query.js';
import { distinctIds, givenRows } from '../given-rows.js';
import type { RowsStatement } from '../group-commit.js';
import { stillPending } from './conditions.js';

export interface Initiation {
  readonly id: string;
  readonly statusUrl: string;
  readonly firstPoll: number;
}

/** One command's initiation; for several, one `update … from (given rows)`. */
const markInitiatedCompiled = compiledRowsQuery<Initiation, never>(
  3,
  // In the order the single-row update binds them: its set clause, then its where.
  (r) => [r.statusUrl, r.firstPoll, r.id],
  (db, rows) => {
    if (rows.length === 1) {
      const [statusUrl, firstPoll, id] = rows[0]!;
      return db.updateTable('commands').set({ status_url: statusUrl as string, next_poll_at: firstPoll as number })
        .where('id', '=', id as string).where(stillPending);
    }
    const given = givenRows(rows, ([statusUrl, firstPoll, id]) => [
      sql`cast(${statusUrl} as text) as status_url`, sql`cast(${firstPoll} as bigint) as next_poll_at`, sql`cast(${id} as varchar(36)) as id`,
    ]);
    const update = sql`update commands set status_url = given.status_url, next_poll_at = given.next_poll_at
      from (${given}) as given where commands.id = given.id and ${stillPending}`;
    return { compile: () => update.compile(db) };
  },
);

/** `markInitiated` for a group commit's rows: one statement for all of them, compiled once per row count. */
export const markInitiatedRows: RowsStatement<Initiation, void> = async (db, rows) => {
  if (distinctIds(rows)) await markInitiatedCompiled(db, rows);
  else for (const r of rows) await markInitiatedCompiled(db, [r]);
  return rows.map(() => undefined);
};
