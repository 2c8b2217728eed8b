/**
 * Knowing when the registry (plans, OEMs, companies, applications, vehicles) changes, so its rows
 * can be cached on the request path without serving a revoked application or a moved vehicle.
 * A generation number moves on every change; a cached row is good only for the generation it was
 * read in. Changes are seen two ways:
 * - writes through this process's own Kysely instance, synchronously (a plugin watches every
 *   insert, update and delete naming a registry table, before and after it runs);
 * - writes by anyone else (`telematics admin …`, another instance): on PostgreSQL through
 *   LISTEN/NOTIFY, fed by triggers (migration 0006), within milliseconds of their commit; on
 *   SQLite through `PRAGMA data_version`, which moves when any other connection commits to the
 *   file, looked at before cached reads at most once a millisecond, so such a change is seen within one.
 * While the notification channel is down, `live` is false and nothing may be cached.
 */
import type {
  KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow,
} from 'kysely';

export const REGISTRY_TABLES: ReadonlySet<string> = new Set(['plans', 'oems', 'companies', 'applications', 'vehicles']);
export const REGISTRY_CHANNEL = 'telematics_registry';

export class RegistryChanges {
  #generation = 0;
  #live = false;
  readonly #probe: (() => boolean) | undefined;

  /** `probe`, when given, is asked before each cached read whether someone else changed anything. */
  constructor(probe?: () => boolean) {
    this.#probe = probe;
  }

  /** Moves the generation when the probe reports a change made elsewhere. */
  refresh(): void {
    if (this.#probe?.()) this.#generation += 1;
  }

  get generation(): number {
    return this.#generation;
  }

  /** True while every change is certain to be seen. */
  get live(): boolean {
    return this.#live;
  }

  changed(): void {
    this.#generation += 1;
  }

  setLive(live: boolean): void {
    this.#live = live;
    this.#generation += 1;
  }
}

type Node = { kind: string } & Record<string, unknown>;

function tableName(node: unknown): string | undefined {
  const n = node as Node | undefined;
  if (!n) return undefined;
  if (n.kind === 'AliasNode') return tableName(n.node);
  if (n.kind === 'TableNode') return ((n.table as Node).identifier as { name: string }).name;
  return undefined;
}

function writtenTable(node: RootOperationNode): string | undefined {
  const n = node as unknown as Node;
  if (n.kind === 'InsertQueryNode') return tableName(n.into);
  if (n.kind === 'UpdateQueryNode') return tableName(n.table);
  if (n.kind === 'DeleteQueryNode') return tableName(((n.from as Node | undefined)?.froms as unknown[] | undefined)?.[0]);
  return undefined;
}

/** Moves the generation around every write to a registry table made through this Kysely instance. */
export function registryWritesPlugin(changes: RegistryChanges): KyselyPlugin {
  const pending = new Set<unknown>();
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const table = writtenTable(args.node);
      if (table !== undefined && REGISTRY_TABLES.has(table)) {
        pending.add(args.queryId);
        changes.changed();
      }
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      // Again once the write is done: a read that began before it must not be cached after it.
      if (pending.delete(args.queryId)) changes.changed();
      return args.result;
    },
  };
}
