/**
 * For the tests that check which way PostgreSQL reads a table (plans-after-growth,
 * command-by-id-plans): a backlog of commands written in one statement, and statistics read as
 * they stand after this session's own statements.
 */
import { sql } from 'kysely';
import type { Db } from '../../src/store/connection.js';

/** `count` Pending commands, `cmd-00001` on, created at `at` with an hour to their deadline. */
export async function insertPendingCommands(db: Db, count: number, at: number): Promise<void> {
  await sql`insert into commands (id, application_id, company_id, vin, oem, command, status, detail, created_at, updated_at, deadline_at, code_attempts, poll_attempts)
    select 'cmd-' || lpad(n::text, 5, '0'), 'app-1', 'acme', '1HGBH41JXMN109186', 'volta', 'diagnostics', 'Pending', '{}', ${at}, ${at}, ${at + 3_600_000}, 0, 0
    from generate_series(1, ${count}) as n`.execute(db);
}

/**
 * This session's statistics sent now (PostgreSQL 15: otherwise up to a second later) and the
 * session's cached snapshot of them dropped, so the next read of pg_stat_* sees every statement
 * run so far. On a pool of one connection, "this session" is the store's.
 */
export async function flushStatistics(db: Db): Promise<void> {
  await sql`select pg_stat_force_next_flush()`.execute(db);
  await sql`select pg_stat_clear_snapshot()`.execute(db);
}
