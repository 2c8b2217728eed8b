/**
 * Callers already authenticated, by their exact `Authorization` header: a request that presents
 * the same header again, before its token expires and with the registry unchanged since (no
 * application disabled, rotated or deleted: `RegistryChanges`' generation), is the same caller,
 * found without the header's parsing, the verified-token lookup and the application read, and
 * without waiting for a promise. Any registry change, anywhere, sends every caller through the
 * full check again once. Only headers that passed it enter; bounded, the oldest makes room.
 *
 * Each connection's last caller is kept beside the table: a client sends the same header on every
 * request of a keep-alive connection, and comparing it with the last one costs a fraction of
 * finding it in the table, which hashes the whole header (~330–360 characters) every time
 * (105–333 ns against 740–827 a lookup; docs/decisions/0019-callers-remembered-by-header.md).
 */
import type { RegistryChanges } from '../store/registry-changes.js';
import type { Principal } from './authenticate-bearer.js';
import { tokenExpired } from './verified-token-cache.js';

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
  readonly generation: number;
}

interface LastCaller {
  readonly header: string;
  readonly entry: Entry;
}

export class AuthenticatedCallers {
  readonly #entries = new Map<string, Entry>();
  readonly #lastByConnection = new WeakMap<object, LastCaller>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /**
   * The registry generation to remember a check under, read before the check starts; undefined
   * when changes cannot be seen (nothing is then remembered).
   */
  static generationOf(changes: RegistryChanges | undefined): number | undefined {
    if (changes === undefined || !changes.live) return undefined;
    changes.refresh();
    return changes.generation;
  }

  /**
   * The caller `header` was let through as, if that still holds. `connection` (the request's
   * socket), when given, remembers the caller for the next request on it. An entry that fails
   * its check fails it for good (expiry and generation only move forward), so one a connection
   * remembers after the table dropped it for room is checked the same way.
   */
  get(header: string, nowMs: number, changes: RegistryChanges | undefined, connection?: object): Principal | undefined {
    const last = connection === undefined ? undefined : this.#lastByConnection.get(connection);
    const entry = last !== undefined && last.header === header ? last.entry : this.#entries.get(header);
    if (entry === undefined) return undefined;
    if (tokenExpired(entry.expiresAt, nowMs) || AuthenticatedCallers.generationOf(changes) !== entry.generation) {
      // Only this entry: the table may hold a newer one for the header, checked since, which the
      // connection then takes up.
      if (connection !== undefined && last?.entry === entry) {
        this.#lastByConnection.delete(connection);
        return this.get(header, nowMs, changes, connection);
      }
      if (this.#entries.get(header) === entry) this.#entries.delete(header);
      return undefined;
    }
    if (connection !== undefined && last?.entry !== entry) this.#lastByConnection.set(connection, { header, entry });
    return entry.principal;
  }

  /** After a full check that began at `generation` let `header` through, while nothing changed since. */
  remember(header: string, principal: Principal, expiresAt: number, generation: number | undefined, changes: RegistryChanges | undefined): void {
    if (generation === undefined || AuthenticatedCallers.generationOf(changes) !== generation) return;
    if (this.#entries.size >= this.#maxEntries && !this.#entries.has(header)) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(header, { principal, expiresAt, generation });
  }

  get size(): number {
    return this.#entries.size;
  }
}
