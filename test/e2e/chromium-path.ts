/**
 * Where the console's end-to-end tests find Debian's chromium (`CHROMIUM_PATH`, else
 * /usr/bin/chromium), and the one line they fail with when it is not there.
 */
import { accessSync, constants } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The one line a run without a browser at `path` fails with; undefined when it is an executable. */
export function missingChromium(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return `Chromium not found at ${path}: install it with "sudo apt-get install chromium" or set CHROMIUM_PATH`;
  }
}

/**
 * Throws that line when there is no browser at `path`. console-browser.ts calls it as it loads, so
 * every file that drives the browser fails (not skips) before it starts a demo to wait on. The
 * error carries no stack: where it was thrown adds nothing to the line.
 */
export function failWithoutChromium(path: string): void {
  const missing = missingChromium(path);
  if (missing === undefined) return;
  const error = new Error(missing);
  error.stack = `Error: ${missing}`;
  throw error;
}
