/**
 * `telematics …` as an operator runs it: the file itself, through its first line, which gives
 * node V8 flags (bin/telematics.js says why). The Node first on PATH must accept them, or every
 * command would fail before it starts; scripts/test-node-versions.sh runs this on each Node.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/service-process.js';

const run = promisify(execFile);

describe('bin/telematics.js run as a program', () => {
  it('starts through its own first line, with the node flags it names', async () => {
    const firstLine = readFileSync(BIN, 'utf8').split('\n', 1)[0];
    expect(firstLine).toMatch(/^#!\/usr\/bin\/env -S node( --[a-z-]+=\d+)+$/);
    const { stdout } = await run(BIN, ['--help']);
    expect(stdout).toContain('Usage: telematics');
  });

  it('is refused by node when a flag it names is wrong, so the check above can fail', async () => {
    const failure = await run(process.execPath, ['--min-semi-space-size=banana', BIN, '--help']).then(() => undefined, (error: { code: number }) => error);
    expect(failure?.code).not.toBe(0);
  });
});
