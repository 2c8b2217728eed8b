/**
 * TEST_TIMEOUT_FACTOR: unset or empty means 1, a number ≥ 1 scales every wait, and anything else
 * ends a run with one line before a test starts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scaled, timeoutFactor } from './support/timeouts.js';

const VITEST = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname;

describe('TEST_TIMEOUT_FACTOR', () => {
  afterEach(() => { vi.unstubAllEnvs(); });

  it('when unset or empty, then waits are as written; a number of at least 1 multiplies them', () => {
    expect([timeoutFactor(undefined), timeoutFactor(''), timeoutFactor(' 3 '), timeoutFactor('1.5')]).toEqual([1, 1, 3, 1.5]);
    vi.stubEnv('TEST_TIMEOUT_FACTOR', '2.5');
    expect(scaled(20_000)).toBe(50_000);
  });

  it('when it is not a number of at least 1, then it is refused in one line that shows the value', () => {
    for (const bad of ['abc', '0.5', '0', '-2', 'Infinity', '3x']) {
      expect(() => timeoutFactor(bad)).toThrow(`TEST_TIMEOUT_FACTOR must be a number of at least 1 (like 2 or 3), not "${bad}"`);
    }
  });

  it('when a run is started with a bad value, then vitest exits 1 with that line alone', async () => {
    const env = { ...process.env, TEST_TIMEOUT_FACTOR: 'slow' };
    const failure = await promisify(execFile)(process.execPath, [VITEST, 'run', 'test/timeouts.test.ts'], { env }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 1, stderr: 'TEST_TIMEOUT_FACTOR must be a number of at least 1 (like 2 or 3), not "slow"\n' });
  });
});
