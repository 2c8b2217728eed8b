/**
 * Registry rows read on every request (the caller's application, its vehicles), cached in the
 * store connection's `registryCache` while `RegistryChanges` can vouch for them; otherwise every
 * read goes to the database. A value read while the registry changed is returned but not kept.
 * Values are shared, so callers must not modify them.
 *
 * Bounded in two tables, each losing its oldest entry to make room: what was found, and what was
 * not (undefined or null: an unknown tracker id, VIN or application). Anyone can make the service
 * look up names that do not exist, as many as they like; kept apart, those lookups only push out
 * each other, never the rows the requests of known callers need (one table of 20,000 was emptied
 * by 20,000 unknown tracker ids).
 */
import { classifyStoreError } from './classify-error.js';
import type { StoreConnection } from './connection.js';

/** Rows found: a fleet's vehicles, applications, plans and OEMs, with room to spare. */
const MAX_FOUND = 20_000;
/** Names that found nothing: enough that a refused tracker retrying costs no query, while few of them retry at once. */
const MAX_MISSING = 10_000;

const isMissing = (value: unknown): boolean => value === undefined || value === null;

/** Sets `key` as the newest entry of `table`, the oldest leaving when it is full. */
function keep<V>(table: Map<string, V>, key: string, value: V, max: number): void {
  if (!table.delete(key) && table.size >= max) table.delete(table.keys().next().value!);
  table.set(key, value);
}

export interface RegistryReadOptions {
  /**
   * While the database cannot be reached, answer with the value last read, if there is one. For
   * the telemetry edge with the ingest queue (authenticating an automaker, its vehicles, a
   * tracker's vehicle), which keeps accepting data the queue holds until storage is back: no
   * registry change can be made while the database is down, so what was read before still holds.
   */
  readonly lastKnownDuringOutage?: boolean;
}

/** What `peekRegistry` answers when it cannot vouch for a cached value: read it with `cachedRegistryRead`. */
export const NOT_CACHED: unique symbol = Symbol('not cached');

/**
 * The value `cachedRegistryRead` would answer for `key` without reading, when it has one it can
 * vouch for: for a request path that answers synchronously when nothing changed (a promise and
 * a microtask turn less per request).
 */
export function peekRegistry<T>(store: StoreConnection, key: string): T | typeof NOT_CACHED {
  const changes = store.registryChanges;
  if (changes === undefined || !changes.live) return NOT_CACHED;
  changes.refresh();
  const tables = store.registryCache;
  const hit = tables.found.get(key) ?? tables.missing.get(key);
  return hit !== undefined && hit.generation === changes.generation ? hit.value as T : NOT_CACHED;
}

export async function cachedRegistryRead<T>(store: StoreConnection, key: string, load: () => Promise<T>, options?: RegistryReadOptions): Promise<T> {
  if (options?.lastKnownDuringOutage) return readRemembering(store, key, () => cachedRegistryRead(store, key, load));
  const hit = peekRegistry<T>(store, key);
  if (hit !== NOT_CACHED) return hit;
  const changes = store.registryChanges;
  if (changes === undefined || !changes.live) return load();
  const tables = store.registryCache;
  const generation = changes.generation;
  const value = await load();
  if (changes.live && changes.generation === generation) {
    // A key lives in one table: a name registered (or removed) since leaves the other.
    if (isMissing(value)) {
      tables.found.delete(key);
      keep(tables.missing, key, { generation, value }, MAX_MISSING);
    } else {
      tables.missing.delete(key);
      keep(tables.found, key, { generation, value }, MAX_FOUND);
    }
  }
  return value;
}

async function readRemembering<T>(store: StoreConnection, key: string, read: () => Promise<T>): Promise<T> {
  const known = store.registryCache.lastKnown;
  try {
    const value = await read();
    // Only what was found: lookups of names that do not exist (anyone can send those) must not
    // push out the rows an outage needs. The oldest entry goes first.
    if (!isMissing(value)) keep(known, key, value, MAX_FOUND);
    return value;
  } catch (error) {
    if (classifyStoreError(error) === 'unavailable' && known.has(key)) return known.get(key) as T;
    throw error;
  }
}
