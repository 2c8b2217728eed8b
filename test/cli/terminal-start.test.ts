/**
 * `npm start` as a person sees it: `serve --demo` under a pseudo-terminal (util-linux `script`),
 * its output rendered as a terminal would (carriage returns and erase-line applied), then read
 * like a screen. And the same command in a pipe, where logs stay JSON.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/service-process.js';
import { renderedScreen } from '../support/rendered-screen.js';
import { scaled } from '../support/timeouts.js';

/** Runs `serve --demo` until the backfill is stored and a few seconds more, then stops it; all it wrote. */
async function demoOutput(folder: string, inTerminal: boolean): Promise<string> {
  // The demo's tracker ports too: several demos run side by side in the test run.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', TELEMATICS_TELTONIKA_PORT: '0', TELEMATICS_OSMAND_PORT: '0', TELEMATICS_GT06_PORT: '0', TERM: 'xterm' };
  const command = `${process.execPath} ${BIN} serve --demo`;
  const child = inTerminal
    ? spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: folder, env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [BIN, 'serve', '--demo'], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk) => { out += String(chunk); });
  child.stderr!.on('data', (chunk) => { out += String(chunk); });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + scaled(60_000);
    while (!/simulated fleet backfill: [\d,]+ records stored/.test(out)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no backfill summary:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // A few periods of the live simulation: its pushes must not show up line by line.
    await new Promise((r) => setTimeout(r, 12_000));
  } finally {
    // Under `script`, SIGTERM to the session's leader ends the service with it.
    child.kill('SIGTERM');
    await exited;
  }
  return out;
}

/** The screen's lines with text on them. */
const screen = (raw: string): string[] => renderedScreen(raw).filter((l) => l !== '');

describe('npm start in a terminal and in a pipe', () => {
  const folders: string[] = [];
  const folder = () => { const f = mkdtempSync(join(tmpdir(), 'telematics-start-')); folders.push(f); return f; };
  let terminal: string[];
  let pipe: string;
  beforeAll(async () => {
    [terminal, pipe] = await Promise.all([demoOutput(folder(), true).then(screen), demoOutput(folder(), false)]);
  }, scaled(120_000));
  afterAll(() => { for (const f of folders) rmSync(f, { recursive: true, force: true }); });

  it('when started in a terminal, then the banner, one progress line and a few readable log lines show, and the credentials stay on screen', () => {
    const text = terminal.join('\n');
    expect(terminal.filter((l) => l.startsWith('{'))).toEqual([]);
    // The bar was drawn in place and replaced by its summary: nothing else ever shared its line.
    expect(terminal.filter((l) => l.includes('simulated fleet backfill'))).toEqual([expect.stringMatching(/^simulated fleet backfill: [\d,]+ records stored, 0 rejected in [\d.]+ s$/)]);
    expect(terminal).toEqual(expect.arrayContaining([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: simulated fleet starting \{"vehicles":9,/),
    ]));
    for (const line of terminal.filter((l) => /^\[\d\d:\d\d:\d\d\]/.test(l))) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] (INFO|WARN): \S/);
    expect(text).not.toContain('/ingest/');
    const credentials = terminal.findIndex((l) => l.trim().startsWith('client_secret=tcs_'));
    const lastBannerLine = terminal.findIndex((l) => l.startsWith('API docs: '));
    expect(credentials).toBeGreaterThan(0);
    // After the banner: the backfill summary and a handful of log lines, not a screenful. Trip
    // detection runs while the backfill is stored, a pass every 5 s (TRIP_DETECTION_INTERVAL_MS)
    // that logs the trips it found: the slower the machine, the longer the backfill and the more
    // such lines, so a message may repeat once per 5 s of it. The live simulation's pushes (every
    // few seconds for 12 s) must not show up as lines at all.
    const after = terminal.slice(lastBannerLine + 1);
    const backfillS = Number(/ rejected in ([\d.]+) s$/.exec(terminal.find((l) => l.startsWith('simulated fleet backfill:')) ?? '')?.[1] ?? 0);
    const passes = Math.ceil(backfillS / 5);
    const messages = after.map((l) => l.replace(/^\[\d\d:\d\d:\d\d\] (INFO|WARN): /, '').replace(/ \{.*$/, ''));
    const times = new Map<string, number>();
    for (const m of messages) times.set(m, (times.get(m) ?? 0) + 1);
    expect([...times].filter(([, n]) => n > Math.max(3, passes + 1)), after.join('\n')).toEqual([]);
    expect(after.length, after.join('\n')).toBeLessThan(10 + passes);
  });

  it('when its output is a pipe, then every log line is JSON and the backfill reports in tenths, not a redrawn bar', () => {
    const lines = pipe.split('\n').filter((l) => l !== '');
    const logLines = lines.filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(3);
    for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
    expect(pipe).not.toMatch(/\r|\x1b/);
    expect(lines.filter((l) => l.startsWith('simulated fleet backfill ['))).toHaveLength(11);
    expect(logLines.map((l) => JSON.parse(l)).filter((l) => l.route === '/ingest/:oem')).toEqual([]);
  });
});
