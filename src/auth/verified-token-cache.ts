/**
 * Verified access tokens, so a token's signature and claims are checked once rather than on every
 * request (jose's HMAC verification with key import is most of an authenticated request's cost).
 * Only tokens that passed full verification enter; a hit still expires at the token's `exp`, the
 * same instant verification would start refusing it. Revocation is not the cache's business: the
 * application's state is checked on every request after it. Bounded: the oldest entry makes room.
 */
import type { TokenClaims } from '../security/access-tokens.js';

/** jose refuses a token when exp <= now in whole seconds; so do the caches of verified tokens. */
export function tokenExpired(expiresAtMs: number, nowMs: number): boolean {
  return expiresAtMs <= Math.floor(nowMs / 1000) * 1000;
}

export class VerifiedTokenCache {
  readonly #entries = new Map<string, TokenClaims>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** The claims of a token verified earlier and not expired at `nowMs`. */
  get(token: string, nowMs: number): TokenClaims | undefined {
    const claims = this.#entries.get(token);
    if (claims === undefined) return undefined;
    if (tokenExpired(claims.expiresAt, nowMs)) {
      this.#entries.delete(token);
      return undefined;
    }
    return claims;
  }

  set(token: string, claims: TokenClaims): void {
    if (this.#entries.size >= this.#maxEntries && !this.#entries.has(token)) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(token, claims);
  }

  get size(): number {
    return this.#entries.size;
  }
}
