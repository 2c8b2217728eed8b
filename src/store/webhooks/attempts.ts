/** The webhook attempt log (migrations 0012, 0014): one row per attempt, never the receiver's body. */
import type { Insertable, Selectable } from 'kysely';
import { CompiledQuery } from 'kysely';
import type { Db } from '../connection.js';
import type { DialectCapabilities } from '../dialect.js';
import type { WebhookAttemptsTable } from '../schema.js';

export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

/** The attempt log's columns, with their PostgreSQL array types for `unnest`. */
const ATTEMPT_COLUMN_TYPES = {
  id: 'varchar', endpoint_id: 'varchar', event_id: 'varchar', event_type: 'varchar', event_position: 'int8', trigger: 'varchar',
  attempted_at: 'int8', duration_ms: 'int4', status_code: 'int4', error: 'varchar',
} as const satisfies Record<keyof WebhookAttemptsTable, string>;
const ATTEMPT_COLUMNS = Object.keys(ATTEMPT_COLUMN_TYPES) as (keyof WebhookAttemptsTable)[];
const ATTEMPT_COLUMN_LIST = ATTEMPT_COLUMNS.map((c) => `"${c}"`).join(', ');
const INSERT_ATTEMPTS_UNNEST_SQL = `insert into webhook_attempts (${ATTEMPT_COLUMN_LIST}) select * from unnest(${
  ATTEMPT_COLUMNS.map((c, i) => `$${i + 1}::${ATTEMPT_COLUMN_TYPES[c]}[]`).join(', ')})`;
const INSERT_ATTEMPT_ROW_SQL = `insert into webhook_attempts (${ATTEMPT_COLUMN_LIST}) values (${ATTEMPT_COLUMNS.map(() => '?').join(', ')})`;

/**
 * The attempt log's rows, one per attempt: the one write a fast receiver's every event costs. In
 * statements of constant text (prepared once, nothing built per row): one `unnest` of an array per
 * column where arrays can be bound (PostgreSQL), otherwise one single-row insert per attempt in
 * the caller's transaction (SQLite runs a prepared insert in microseconds; Kysely building a
 * 500-row insert cost more than SQLite storing it).
 */
export async function insertWebhookAttempts(db: Db, capabilities: DialectCapabilities, rows: readonly Insertable<WebhookAttemptsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  if (capabilities.arrayParameters) {
    const arrays = ATTEMPT_COLUMNS.map((c) => rows.map((row) => row[c] ?? null));
    await db.executeQuery(CompiledQuery.raw(INSERT_ATTEMPTS_UNNEST_SQL, arrays));
    return;
  }
  for (const row of rows) await db.executeQuery(CompiledQuery.raw(INSERT_ATTEMPT_ROW_SQL, ATTEMPT_COLUMNS.map((c) => row[c] ?? null)));
}

export const insertWebhookAttempt = (db: Db, row: Insertable<WebhookAttemptsTable>) => db.insertInto('webhook_attempts').values(row).execute();

export const listWebhookAttempts = (db: Db, endpointId: string, limit: number): Promise<WebhookAttemptRow[]> =>
  db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId).orderBy('attempted_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
