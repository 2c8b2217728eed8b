/**
 * Registry rows read on every request (the caller's application, its vehicles), cached per store
 * while `RegistryChanges` can vouch for them; otherwise every read goes to the database. A value
 * read while the registry changed is returned but not kept. Bounded; values are shared, so
 * callers must not modify them.
 */
import type { StoreConnection } from './connection.js';

const MAX_ENTRIES = 20_000;
const caches = new WeakMap<StoreConnection, Map<string, { generation: number; value: unknown }>>();

export async function cachedRegistryRead<T>(store: StoreConnection, key: string, load: () => Promise<T>): Promise<T> {
  const changes = store.registryChanges;
  if (changes === undefined || !changes.live) return load();
  changes.refresh();
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  const generation = changes.generation;
  const hit = cache.get(key);
  if (hit !== undefined && hit.generation === generation) return hit.value as T;
  const value = await load();
  if (changes.live && changes.generation === generation) {
    if (cache.size >= MAX_ENTRIES) cache.clear(); // every entry of an older generation is dead anyway
    cache.set(key, { generation, value });
  }
  return value;
}
