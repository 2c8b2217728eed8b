/**
 * A list of rows given by the caller as a derived table, for `update … from (…) as given` and
 * joins: `select … union all select …`, which both dialects read the same way. Each column is
 * written with a cast so PostgreSQL knows its type (a bare parameter has none).
 */
import { sql, type RawBuilder } from 'kysely';

export function givenRows<R>(rows: readonly R[], columns: (row: R) => readonly RawBuilder<unknown>[]): RawBuilder<unknown> {
  return sql.join(rows.map((row) => sql`select ${sql.join(columns(row))}`), sql` union all `);
}

/**
 * Each of `rows` names its own row, once: a statement over given rows that name one row twice
 * would update it once, so such a batch is written row by row.
 */
export const distinctIds = (rows: readonly { id: string }[]): boolean => new Set(rows.map((r) => r.id)).size === rows.length;
