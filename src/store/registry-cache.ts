/**
 * Registry rows read on every request (the caller's application, its vehicles), cached per store
 * while `RegistryChanges` can vouch for them; otherwise every read goes to the database. A value
 * read while the registry changed is returned but not kept. Bounded; values are shared, so
 * callers must not modify them.
 */
import { classifyStoreError } from './classify-error.js';
import type { StoreConnection } from './connection.js';

const MAX_ENTRIES = 20_000;
const caches = new WeakMap<StoreConnection, Map<string, { generation: number; value: unknown }>>();
const lastKnown = new WeakMap<StoreConnection, Map<string, unknown>>();

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
  const hit = caches.get(store)?.get(key);
  return hit !== undefined && hit.generation === changes.generation ? hit.value as T : NOT_CACHED;
}

export async function cachedRegistryRead<T>(store: StoreConnection, key: string, load: () => Promise<T>, options?: RegistryReadOptions): Promise<T> {
  if (options?.lastKnownDuringOutage) return readRemembering(store, key, () => cachedRegistryRead(store, key, load));
  const hit = peekRegistry<T>(store, key);
  if (hit !== NOT_CACHED) return hit;
  const changes = store.registryChanges;
  if (changes === undefined || !changes.live) return load();
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  const generation = changes.generation;
  const value = await load();
  if (changes.live && changes.generation === generation) {
    if (cache.size >= MAX_ENTRIES) cache.clear(); // every entry of an older generation is dead anyway
    cache.set(key, { generation, value });
  }
  return value;
}

async function readRemembering<T>(store: StoreConnection, key: string, read: () => Promise<T>): Promise<T> {
  let known = lastKnown.get(store);
  if (!known) lastKnown.set(store, (known = new Map()));
  try {
    const value = await read();
    // Only what was found: lookups of names that do not exist (anyone can send those) must not
    // push out the rows an outage needs. The oldest entry goes first.
    if (value !== undefined && value !== null) {
      if (known.size >= MAX_ENTRIES && !known.has(key)) known.delete(known.keys().next().value!);
      known.set(key, value);
    }
    return value;
  } catch (error) {
    if (classifyStoreError(error) === 'unavailable' && known.has(key)) return known.get(key) as T;
    throw error;
  }
}
