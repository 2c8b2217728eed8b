/**
 * Named (server-side prepared) statements for the queries the service runs again and again: a
 * text seen a second time gets a stable name, so each connection parses and plans it once and
 * then only binds. What is never named: statements other than select/insert/update/delete/with
 * (DDL such as partition creation), texts with more than `maxParameters` parameters (long `in`
 * lists or bulk VALUES, whose text varies with their input), and anything past `maxNames`
 * distinct texts, so a connection's prepared set stays small. Texts seen once are remembered up to
 * 10 × `maxNames`, then forgotten together: a text seen just before that needs two more uses.
 *
 * The exception is `rowStatements`: the group commit's row statements (compiled-query.ts), one
 * text per row count up to 16 rows. They are the request path's writes and recur by construction,
 * so they are named on first use whatever their parameter count, and count against no budget
 * (there are at most 16 a statement). Before, a batch of four command inserts (52 parameters) was
 * parsed and planned on every run: 230–240 µs of the backend's user CPU a statement against
 * 120–125 named (docs/decisions/0027-named-prepared-statements.md).
 *
 * Behind a transaction-pooling PgBouncer, prepared statements need its `max_prepared_statements`;
 * and a schema change under a running instance may fail a prepared `select *` once (restart
 * instances after migrating, as usual).
 */
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

export interface PreparedStatementOptions {
  readonly maxNames?: number;
  readonly maxParameters?: number;
  /** Texts named on first use, outside both bounds (the row statements' texts). */
  readonly rowStatements?: ReadonlySet<string>;
}

export function withPreparedStatements(pool: pg.Pool, options: PreparedStatementOptions = {}): PostgresPool {
  const maxNames = options.maxNames ?? 200;
  const maxParameters = options.maxParameters ?? 40;
  const rowStatements = options.rowStatements ?? new Set<string>();
  const nameOf = (text: string) => `tlm_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  const names = new Map<string, string>();
  /** Names given to texts other than row statements: the ones `maxNames` bounds. */
  let othersNamed = 0;
  const seenOnce = new Set<string>();

  const nameFor = (text: string, parameterCount: number): string | undefined => {
    const known = names.get(text);
    if (known !== undefined) return known;
    if (rowStatements.has(text)) {
      const name = nameOf(text);
      names.set(text, name);
      return name;
    }
    if (othersNamed >= maxNames || parameterCount > maxParameters || !NAMEABLE.test(text)) return undefined;
    if (!seenOnce.has(text)) {
      // Full of texts that never came back: forget them all, rather than stop noticing new ones
      // for the rest of the process (a text that recurs is seen twice again soon enough).
      if (seenOnce.size >= 10 * maxNames) seenOnce.clear();
      seenOnce.add(text);
      return undefined;
    }
    seenOnce.delete(text);
    const name = nameOf(text);
    names.set(text, name);
    othersNamed += 1;
    return name;
  };

  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    query: ((textOrCursor: unknown, parameters?: readonly unknown[]) => {
      if (typeof textOrCursor !== 'string') return client.query(textOrCursor as pg.Submittable);
      const values = parameters as unknown[];
      const name = nameFor(textOrCursor, values.length);
      return name === undefined ? client.query(textOrCursor, values) : client.query({ name, text: textOrCursor, values });
    }) as unknown as PostgresPoolClient['query'],
    release: () => client.release(),
  });
  // One wrapper per pooled connection, for as long as it lives: Kysely keeps its own connection
  // object per client it is handed, and a new wrapper on every checkout made it build one (and
  // a WeakMap entry) for every statement.
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();

  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let wrapper = wrapped.get(client);
      if (wrapper === undefined) wrapped.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}
