/**
 * A store whose statements are counted: what a pass costs the database, as a number a test can
 * assert (idle passes of the background workers, docs/decisions/0025). Counts what the query builder runs,
 * one per statement however many subqueries it holds; a transaction's begin and commit are not
 * statements of the builder and are not counted.
 */
import type { KyselyPlugin, QueryId } from 'kysely';
import type { StoreConnection } from '../../src/store/connection.js';
import { withStoreState } from '../../src/store/open-store.js';

export interface CountedStore {
  readonly store: StoreConnection;
  /** The kind of each statement run since the last `reset` (`SelectQueryNode`, `UpdateQueryNode` …). */
  readonly statements: string[];
  reset(): void;
}

export function countedStore(store: StoreConnection): CountedStore {
  const statements: string[] = [];
  // A subquery built from the counted instance passes through transformQuery too: a statement is
  // counted when its result comes back, under the kind its root node had.
  const kinds = new WeakMap<QueryId, string>();
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      kinds.set(args.queryId, args.node.kind);
      return args.node;
    },
    transformResult: async (args) => {
      statements.push(kinds.get(args.queryId) ?? 'unknown');
      return args.result;
    },
  };
  return {
    // State of its own (group commit, registry cache), as any other connection: its writes are counted too.
    store: withStoreState({ ...store, db: store.db.withPlugin(counter), close: () => store.close() }),
    statements,
    reset: () => { statements.length = 0; },
  };
}
