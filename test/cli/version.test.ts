/** `telematics --version` and `-V`: the package's version on a line of its own, exit code 0. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/service-process.js';

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('telematics --version', () => {
  it.each(['--version', '-V'])('when run with %s, then it prints the package version and exits 0', async (flag) => {
    const { stdout, stderr } = await run(process.execPath, [BIN, flag]);
    expect(stdout).toBe(`${version}\n`);
    expect(stderr).toBe('');
  });

  it('when asked for help, then the flag is listed', async () => {
    const { stdout } = await run(process.execPath, [BIN, '--help']);
    expect(stdout).toMatch(/^\s+-V, --version\s+print the version and exit$/m);
  });
});
