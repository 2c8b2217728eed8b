/**
 * Reads and writes of commands. Every state change is one statement guarded by the state it
 * leaves (and, for workers, by the lease it holds), so concurrent callers cannot both win.
 */
import { sql, type ExpressionBuilder, type Insertable, type Selectable } from 'kysely';
import type { Db } from './connection.js';
import { compiledQuery, compiledRowsQuery } from './compiled-query.js';
import { givenRows } from './given-rows.js';
import { equalsNotFromPartialIndex } from './not-from-partial-index.js';
import { commandOutcomeEvent, type CommandOutcome } from '../domain/events.js';
import { appendEvents } from './events-queries.js';
import { inTransaction } from './in-transaction.js';
import { orphanedInitiation } from './initiation-recovery-queries.js';
import type { CommandsTable, Database } from './schema.js';
import type { DialectCapabilities } from './dialect.js';
import type { RowsStatement } from './write-batcher.js';

export type CommandRow = Selectable<CommandsTable>;

/**
 * For the worker's queries over Pending commands: a literal, not a parameter, since SQLite uses
 * the partial index on Pending rows only when it can see the value.
 */
const PENDING = sql.lit('Pending');
/** For statements that find commands by id: the same check, answered by the primary key. */
const stillPending = equalsNotFromPartialIndex('commands.status', 'Pending');

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

/** Each of `rows` names its own command, once: a batch naming one twice is written row by row. */
const distinctIds = (rows: readonly { id: string }[]) => new Set(rows.map((r) => r.id)).size === rows.length;

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

/** An application's confirmations for (vin, command) whose codes may still be presented or recognised. */
export function listConfirmations(db: Db, applicationId: string, vin: string, command: string, since: number): Promise<CommandRow[]> {
  return db.selectFrom('commands').selectAll()
    .where('application_id', '=', applicationId).where('vin', '=', vin).where('command', '=', command)
    .where('code_hash', 'is not', null).where('created_at', '>=', since).execute();
}

/** A wrong code counts against every outstanding confirmation of (application, vin, command). */
export async function countWrongCode(db: Db, applicationId: string, vin: string, command: string): Promise<void> {
  await db.updateTable('commands').set((eb) => ({ code_attempts: eb('code_attempts', '+', 1) }))
    .where('application_id', '=', applicationId).where('vin', '=', vin).where('command', '=', command)
    .where('code_hash', 'is not', null).where('status', '=', 'Confirmation').where('code_used_at', 'is', null).execute();
}

/** Step 2 of D5: the one caller whose update lands moves the record to Pending. */
export async function useConfirmation(db: Db, id: string, now: number, maxAttempts: number, deadline: number): Promise<boolean> {
  const result = await db.updateTable('commands').set({ status: 'Pending', code_used_at: now, deadline_at: deadline })
    .where('id', '=', id).where('status', '=', 'Confirmation').where('code_used_at', 'is', null)
    .where('code_expires_at', '>=', now).where('code_attempts', '<', maxAttempts)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

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

/**
 * What an outcome's update returns: enough for its event. Every outcome (a result, an automaker's
 * refusal at initiation, a timeout) is written by the three functions below and nowhere else, and
 * each appends its `command.succeeded`/`command.failed` event in the same transaction.
 */
const OUTCOME_COLUMNS = ['id', 'application_id', 'company_id', 'vin', 'command', 'status', 'detail', 'updated_at'] as const;

async function appendOutcomeEvents(db: Db, rows: readonly CommandOutcome[], now: number): Promise<void> {
  await appendEvents(db, rows.map((r) => commandOutcomeEvent({ ...r, updated_at: Number(r.updated_at) })), now);
}

/** A final outcome; only from Pending, and only by the lease holder when one is given. */
export async function finishCommand(db: Db, id: string, status: 'Success' | 'Error', detail: unknown, now: number, leaseOwner?: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    let q = trx.updateTable('commands')
      .set({ status, detail: JSON.stringify(detail), updated_at: now, next_poll_at: null, lease_owner: null, lease_until: null })
      .where('id', '=', id).where('status', '=', 'Pending');
    if (leaseOwner !== undefined) q = q.where('lease_owner', '=', leaseOwner);
    const landed = await q.returning(OUTCOME_COLUMNS).execute();
    await appendOutcomeEvents(trx, landed, now);
    return landed.length === 1;
  });
}

export interface Outcome {
  readonly id: string;
  readonly status: 'Success' | 'Error';
  readonly detail: unknown;
  readonly now: number;
  readonly leaseOwner?: string;
}

/** `finishCommand` for a group commit's rows: one statement; each row answers whether it landed. */
export const finishCommandRows: RowsStatement<Outcome, boolean> = async (db, rows) => {
  if (rows.length === 1 || !distinctIds(rows)) {
    // One finishCommand each: on a shared transaction its appends must be held to the end
    // (the write batcher's appendEventsLast), or a later update would run with the counter held.
    const landed: boolean[] = [];
    for (const r of rows) landed.push(await finishCommand(db, r.id, r.status, r.detail, r.now, r.leaseOwner));
    return landed;
  }
  const given = givenRows(rows, (r) => [
    sql`cast(${r.id} as varchar(36)) as id`, sql`cast(${r.status} as varchar(16)) as status`, sql`cast(${JSON.stringify(r.detail)} as text) as detail`,
    sql`cast(${r.now} as bigint) as updated_at`, sql`cast(${r.leaseOwner ?? null} as varchar(64)) as lease_owner`,
  ]);
  return inTransaction(db, async (trx) => {
    const { rows: landed } = await sql<CommandOutcome>`
      update commands set status = given.status, detail = given.detail, updated_at = given.updated_at, next_poll_at = null, lease_owner = null, lease_until = null
      from (${given}) as given
      where commands.id = given.id and ${stillPending} and (given.lease_owner is null or commands.lease_owner = given.lease_owner)
      returning ${sql.join(OUTCOME_COLUMNS.map((c) => sql.ref(`commands.${c}`)))}`.execute(trx);
    await appendOutcomeEvents(trx, landed, Math.max(...rows.map((r) => r.now)));
    const ids = new Set(landed.map((r) => r.id));
    return rows.map((r) => ids.has(r.id));
  });
};

/** Still pending at the automaker: poll again later and let go of the lease. */
export async function schedulePoll(db: Db, id: string, leaseOwner: string, nextPollAt: number): Promise<void> {
  await db.updateTable('commands').set((eb) => ({ next_poll_at: nextPollAt, poll_attempts: eb('poll_attempts', '+', 1), lease_owner: null, lease_until: null }))
    .where('id', '=', id).where('status', '=', 'Pending').where('lease_owner', '=', leaseOwner).execute();
}

/** Pending with a status URL, its poll due, held by no worker (or its lease lapsed). */
const pollDue = (now: number) => (eb: ExpressionBuilder<Database, 'commands'>) => eb.and([
  eb('status', '=', PENDING), eb('status_url', 'is not', null), eb('next_poll_at', '<=', now),
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
]);

/** Pending past its deadline, held by no worker, or held `graceMs` past it (expireOverdueCommands). */
const overdue = (now: number, graceMs: number) => (eb: ExpressionBuilder<Database, 'commands'>) => eb.and([
  eb('status', '=', PENDING), eb('deadline_at', '<', now),
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('deadline_at', '<', now - graceMs)]),
]);

export interface CommandWorkDue {
  readonly overdue: boolean;
  readonly pollDue: boolean;
  /** A command a crash left without a status URL, to initiate again (initiation-recovery-queries.ts). */
  readonly orphaned: boolean;
}

/**
 * Whether the command worker's pass has anything to do: a command to expire, a poll due, an
 * initiation to repeat (`orphanedBefore`: when its initiation must have begun). One statement, so
 * an idle pass is one statement instead of four (a transaction round the expiry, and the claim).
 * The overdue look reads Pending rows as the expiry does (no index holds them by deadline), and
 * stops at the first it finds.
 */
export async function commandWorkDue(db: Db, now: number, graceMs: number, orphanedBefore: number): Promise<CommandWorkDue> {
  const row = await db.selectNoFrom((eb) => [
    eb.exists(db.selectFrom('commands').select('id').where(overdue(now, graceMs))).as('overdue'),
    eb.exists(db.selectFrom('commands').select('id').where(pollDue(now))).as('poll_due'),
    eb.exists(db.selectFrom('commands').select('id').where(orphanedInitiation(now, orphanedBefore))).as('orphaned'),
  ]).executeTakeFirstOrThrow();
  // PostgreSQL answers booleans, SQLite 0 or 1.
  return { overdue: Boolean(row.overdue), pollDue: Boolean(row.poll_due), orphaned: Boolean(row.orphaned) };
}

/**
 * Takes up to `limit` due commands for `owner` until `leaseUntil`: Pending, with a status URL,
 * poll time reached, and no live lease. On PostgreSQL rows locked by another claimer are skipped,
 * so instances never wait on each other and never take the same command.
 */
export async function claimDueCommands(
  db: Db, capabilities: DialectCapabilities, owner: string, now: number, leaseUntil: number, limit: number,
): Promise<CommandRow[]> {
  // One statement (a pass used to make three in a transaction: select, update, select again).
  // The due rows are chosen in a materialized CTE: PostgreSQL may run an `in (subquery)` again
  // for each outer row, and each run would skip the rows already locked and take `limit` more.
  return db.with((cte) => cte('due').materialized(), (qb) => {
    const due = qb.selectFrom('commands').select('id').where(pollDue(now)).orderBy('next_poll_at').limit(limit);
    return capabilities.skipLocked ? due.forUpdate().skipLocked() : due;
  })
    .updateTable('commands').set({ lease_owner: owner, lease_until: leaseUntil })
    .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
    .where(stillPending).returningAll().execute();
}

/**
 * Pending past their deadline end as `Command timeout.` (D6): at once when no worker holds them,
 * and `graceMs` later even when one does (its poll is bounded by that), so a worker that died
 * holding a lease cannot keep a command Pending past its deadline for the rest of the lease.
 */
export async function expireOverdueCommands(db: Db, now: number, detail: string, graceMs: number): Promise<number> {
  return inTransaction(db, async (trx) => {
    const expired = await trx.updateTable('commands')
      .set({ status: 'Error', detail: JSON.stringify(detail), updated_at: now, next_poll_at: null, lease_owner: null, lease_until: null })
      .where(overdue(now, graceMs)).returning(OUTCOME_COLUMNS).execute();
    await appendOutcomeEvents(trx, expired, now);
    return expired.length;
  });
}

/**
 * The vehicle's link has news for a Pending command (a tracker answered): poll it now instead of
 * at its backed-off time. A lease held by a worker is left alone; its own poll sees the news.
 */
export async function pollCommandNow(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('commands').set({ next_poll_at: now }).where('id', '=', id).where(stillPending).execute();
}
