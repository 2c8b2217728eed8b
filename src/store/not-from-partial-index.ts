import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * `column = 'value'` for statements that find rows by their key and check their state, written
 * so PostgreSQL cannot answer it from a partial index whose predicate is the same condition
 * (`where status = 'Pending'`). Given that condition, PostgreSQL may scan such an index for every
 * row in that state and filter them by key, and does whenever its statistics say the state is
 * rare while it is not (a backlog, or a table not analyzed yet); a parameter does not prevent it,
 * since a custom plan sees the value. Found in issue 22: a prepared initiation update read every
 * Pending command for each creation, ~10 ms apiece with 25,000 Pending. The column is not null,
 * so `|| ''` changes nothing but what the planner can prove; the key's index then answers.
 */
export function equalsNotFromPartialIndex(column: string, value: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} || '' = ${sql.lit(value)}`;
}
