/**
 * Queries of the request path, built and compiled by Kysely once per dialect rather than per
 * call: building and compiling a small statement costs more than SQLite takes to run it (a
 * command creation's insert and update were ~70 µs of Kysely work a creation; docs/decisions/0018).
 * `build` receives one placeholder per parameter; the compiled text must bind exactly those, in
 * that order, or the first call throws (a guard against a builder whose parameters do not line up).
 * Texts are kept per adapter, not per `Db`: a transaction is a new `Db` over the same adapter.
 */
import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from './connection.js';

const placeholder = (i: number) => `\u0000param${i}`;

function compileChecked(compilable: { compile(): CompiledQuery }, count: number): string {
  const compiled = compilable.compile();
  if (compiled.parameters.length !== count || compiled.parameters.some((p, i) => p !== placeholder(i))) {
    throw new Error(`compiled query binds ${JSON.stringify(compiled.parameters)}, not its ${count} parameters in order`);
  }
  return compiled.sql;
}

/** The key texts are kept under: the same for a database and every transaction on it. */
const dialectOf = (db: Db): object => db.getExecutor().adapter;

export function compiledQuery<P extends readonly unknown[], R>(
  arity: P['length'], build: (db: Db, ...params: P) => Compilable<R>,
): (db: Db, ...params: P) => Promise<R[]> {
  const texts = new WeakMap<object, string>();
  const placeholders = Array.from({ length: arity }, (_, i) => placeholder(i)) as unknown as P;
  return async (db, ...params) => {
    const dialect = dialectOf(db);
    let text = texts.get(dialect);
    if (text === undefined) texts.set(dialect, (text = compileChecked(build(db, ...placeholders), arity)));
    return (await db.executeQuery<R>(CompiledQuery.raw(text, params as unknown as unknown[]))).rows;
  };
}

/** Row statements of up to this many rows are offered to PostgreSQL's naming: the batches a busy instance makes most. */
const NAMED_ROWS = 16;

/**
 * Texts of row statements of up to NAMED_ROWS rows, of every `compiledRowsQuery`: each recurs by
 * construction, however many parameters it binds, so the PostgreSQL pool prepares them on first
 * use and outside its budget for other texts (prepared-statements.ts). At most NAMED_ROWS texts a
 * statement and dialect.
 */
export const rowStatementTexts = new Set<string>();

/**
 * A statement over a group commit's rows (write-batcher.ts), compiled once per dialect and row
 * count: a batch holds at most a few hundred rows, so there are at most that many texts. `build`
 * receives each row as placeholders (`arity` of them, in the order `valuesOf` gives the row's
 * values) and must bind them all, row after row.
 */
export function compiledRowsQuery<Row, R>(
  arity: number,
  valuesOf: (row: Row) => readonly unknown[],
  build: (db: Db, rows: readonly (readonly unknown[])[]) => { compile(): CompiledQuery },
): (db: Db, rows: readonly Row[]) => Promise<R[]> {
  const texts = new WeakMap<object, Map<number, string>>();
  return async (db, rows) => {
    const dialect = dialectOf(db);
    let byCount = texts.get(dialect);
    if (byCount === undefined) texts.set(dialect, (byCount = new Map()));
    let text = byCount.get(rows.length);
    if (text === undefined) {
      const placeholderRows = rows.map((_, r) => Array.from({ length: arity }, (__, c) => placeholder(r * arity + c)));
      byCount.set(rows.length, (text = compileChecked(build(db, placeholderRows), rows.length * arity)));
      if (rows.length <= NAMED_ROWS) rowStatementTexts.add(text);
    }
    const params: unknown[] = [];
    for (const row of rows) {
      const values = valuesOf(row);
      if (values.length !== arity) throw new Error(`a row gave ${values.length} values, not ${arity}`);
      for (const value of values) params.push(value);
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
  };
}
