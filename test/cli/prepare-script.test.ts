/**
 * The prepare script: run by `npx telematics` (npm exec installing the package it runs, from its
 * own folder) when everything is built, it builds nothing, so a service running from the clone
 * keeps the console assets it serves. (A rebuild under a running demo once made its lazily loaded
 * assets answer 404 in the end-to-end tests.)
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

describe('scripts/prepare.mjs', () => {
  it('when npm exec runs it on a built clone, then it exits at once and leaves every build output as it was', async () => {
    const outputs = ['dist/cli/main.js', 'packages/console/dist/index.html'].map((f) => `${ROOT}${f}`);
    const before = outputs.map((f) => statSync(f).mtimeMs);
    const started = Date.now();
    const { stdout, stderr } = await run(process.execPath, ['scripts/prepare.mjs'], { cwd: ROOT, env: { ...process.env, npm_command: 'exec' } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stdout + stderr).toBe('');
    expect(outputs.map((f) => statSync(f).mtimeMs)).toEqual(before);
  });
});
