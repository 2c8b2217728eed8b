/**
 * Without the browser, the console's end-to-end tests fail at once with one line that says how to
 * install it, rather than a playwright stack after a demo start. No browser is launched here.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { missingChromium } from './chromium-path.js';

const LINE = 'Chromium not found at /nonexistent/chromium: install it with "sudo apt-get install chromium" or set CHROMIUM_PATH';

describe('the console tests without Chromium', () => {
  afterEach(() => { vi.unstubAllEnvs(); });

  it('when CHROMIUM_PATH names no file, then loading the browser helper fails with one line naming the path, the package and the variable', async () => {
    vi.stubEnv('CHROMIUM_PATH', '/nonexistent/chromium');
    vi.resetModules(); // chromium-path.ts read the variable when this file imported it
    const failure = await import('./console-browser.js').then(() => undefined, (error: unknown) => error as Error);
    expect(failure?.message).toBe(LINE);
    expect(failure?.stack).toBe(`Error: ${LINE}`);
  });

  it('when the path is a file that cannot be run, then it counts as missing; an executable one does not', () => {
    const folder = mkdtempSync(join(tmpdir(), 'missing-chromium-'));
    try {
      const file = join(folder, 'chromium');
      writeFileSync(file, '#!/bin/sh\n');
      chmodSync(file, 0o644);
      expect(missingChromium(file)).toBe(LINE.replace('/nonexistent/chromium', file));
      chmodSync(file, 0o755);
      expect(missingChromium(file)).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
