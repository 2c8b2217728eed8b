import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * For statements that find rows by their key and check their state (`status = 'Pending'`,
 * `sent_at is null`) where a partial index has that state as its predicate. Given the plain
 * condition, PostgreSQL may scan such an index for every row in that state and filter them by key,
 * and does whenever its statistics say the state is rare while it is not (a backlog, or a table not
 * analyzed yet); a parameter does not prevent it, since a custom plan sees the value. Found in a
 * profile (docs/decisions/0021): a prepared initiation update read every Pending command for each creation, ~10 ms
 * apiece with 25,000 Pending. The column is compared through an expression of the same value
 * (`|| ''` on text, `+ 0` on a number; null stays null), from which the planner cannot prove the
 * index's predicate, so the key's index answers.
 */
export function sameValueUnindexed(column: string, type: 'text' | 'number'): RawBuilder<unknown> {
  return type === 'text' ? sql`(${sql.ref(column)} || '')` : sql`(${sql.ref(column)} + 0)`;
}

/** `column = 'value'` for a not-null text column, answered by the key (see above). */
export function equalsNotFromPartialIndex(column: string, value: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sameValueUnindexed(column, 'text')} = ${sql.lit(value)}`;
}
