import { scaled } from './timeouts.js';

/**
 * Polls `check` until it holds and resolves with the time it first did; a check that throws
 * counts as not yet (a process that is restarting refuses connections). After `within` ms
 * (times TEST_TIMEOUT_FACTOR: a deadline to wait by, never a limit under test) it fails, naming
 * `what` and the last error seen.
 */
export async function until(what: string, check: () => Promise<boolean>, within = 20_000, everyMs = 100): Promise<number> {
  const started = Date.now();
  const ms = scaled(within);
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return Date.now();
    } catch (err) {
      lastError = err;
    }
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}${lastError === undefined ? '' : ` (last error: ${String(lastError)})`}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
