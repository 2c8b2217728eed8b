/**
 * Queries of the request path, built and compiled by Kysely once per database rather than per
 * call: building and compiling a small select costs more than SQLite takes to run it. `build`
 * receives one placeholder per parameter; the compiled text must bind exactly those, in that
 * order, or the first call throws (a guard against a builder whose parameters do not line up).
 */
import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from './connection.js';

export function compiledQuery<P extends readonly unknown[], R>(
  arity: P['length'], build: (db: Db, ...params: P) => Compilable<R>,
): (db: Db, ...params: P) => Promise<R[]> {
  const texts = new WeakMap<Db, string>();
  const placeholders = Array.from({ length: arity }, (_, i) => `\u0000param${i}`) as unknown as P;
  return async (db, ...params) => {
    let text = texts.get(db);
    if (text === undefined) {
      const compiled = build(db, ...placeholders).compile();
      if (compiled.parameters.length !== arity || compiled.parameters.some((p, i) => p !== placeholders[i])) {
        throw new Error(`compiled query binds ${JSON.stringify(compiled.parameters)}, not its ${arity} parameters in order`);
      }
      text = compiled.sql;
      texts.set(db, text);
    }
    return (await db.executeQuery<R>(CompiledQuery.raw(text, params as unknown as unknown[]))).rows;
  };
}
