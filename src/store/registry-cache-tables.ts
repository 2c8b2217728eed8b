/** A registry value as cached: good only for the registry generation it was read in. */
export interface CachedRegistryValue {
  readonly generation: number;
  readonly value: unknown;
}

/** One connection's registry cache; registry-cache.ts decides what goes in and what is answered. */
export class RegistryCacheTables {
  /** Keys whose read found a row. */
  readonly found = new Map<string, CachedRegistryValue>();
  /** Keys whose read found nothing (undefined or null). */
  readonly missing = new Map<string, CachedRegistryValue>();
  /** The value last found for each key, answered while the database cannot be reached. */
  readonly lastKnown = new Map<string, unknown>();
}
