/**
 * Callers already authenticated, by their exact `Authorization` header: a request that presents
 * the same header again, before its token expires and with the registry unchanged since (no
 * application disabled, rotated or deleted: `RegistryChanges`' generation), is the same caller,
 * found without the header's parsing, the verified-token lookup and the application read, and
 * without waiting for a promise. Any registry change, anywhere, sends every caller through the
 * full check again once. Only headers that passed it enter; bounded, the oldest makes room.
 */
import type { RegistryChanges } from '../store/registry-changes.js';
import type { Principal } from './authenticate-bearer.js';
import { tokenExpired } from './verified-token-cache.js';

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
  readonly generation: number;
}

export class AuthenticatedCallers {
  readonly #entries = new Map<string, Entry>();
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

  get(header: string, nowMs: number, changes: RegistryChanges | undefined): Principal | undefined {
    const entry = this.#entries.get(header);
    if (entry === undefined) return undefined;
    if (tokenExpired(entry.expiresAt, nowMs) || AuthenticatedCallers.generationOf(changes) !== entry.generation) {
      this.#entries.delete(header);
      return undefined;
    }
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
