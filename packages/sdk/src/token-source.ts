/**
 * The bearer token every call carries: fetched from POST /token with the client credentials,
 * cached, and fetched again shortly before it expires. Concurrent callers share one fetch, so a
 * burst of calls on a cold or expiring cache makes one /token request, not one each.
 */

export interface IssuedToken {
  readonly token: string;
  /** Lifetime in seconds, as POST /token answers. */
  readonly expiration: number;
}

/** Refresh this long before expiry (Fern's generated clients use 2 min); half the lifetime for short tokens. */
const REFRESH_MARGIN_MS = 120_000;

export class TokenSource {
  #current: { readonly token: string; readonly refreshAt: number; readonly expiresAt: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token valid for a while yet. */
  get(): Promise<string> {
    const current = this.#current;
    const now = this.now();
    if (current !== undefined && now < current.refreshAt) return Promise.resolve(current.token);
    this.#pending ??= this.#fetch().finally(() => { this.#pending = undefined; });
    // Refreshing early failed: the token in hand still works until it expires.
    if (current !== undefined && now < current.expiresAt) return this.#pending.catch(() => current.token);
    return this.#pending;
  }

  /** Forget `token` after the service refused it (revoked, keys rotated): the next get() fetches anew. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = undefined;
  }

  async #fetch(): Promise<string> {
    const startedAt = this.now();
    const { token, expiration } = await this.issue();
    const lifetimeMs = Math.max(0, expiration * 1000);
    this.#current = { token, refreshAt: startedAt + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2), expiresAt: startedAt + lifetimeMs };
    return token;
  }
}
