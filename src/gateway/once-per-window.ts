/**
 * Rate limit for warning lines that an outsider can trigger (unknown ids, spoofed datagrams): a
 * key passes at most once per window, and at most `maxKeys` keys pass per window, so a flood
 * of ids cannot flood the log.
 */
export class OncePerWindow {
  readonly #windowMs: number;
  readonly #maxKeys: number;
  #windowStart = 0;
  readonly #passed = new Set<string>();

  constructor(windowMs: number, maxKeys: number) {
    this.#windowMs = windowMs;
    this.#maxKeys = maxKeys;
  }

  passes(key: string, now: number): boolean {
    if (now - this.#windowStart >= this.#windowMs) {
      this.#windowStart = now;
      this.#passed.clear();
    }
    if (this.#passed.has(key) || this.#passed.size >= this.#maxKeys) return false;
    this.#passed.add(key);
    return true;
  }
}
