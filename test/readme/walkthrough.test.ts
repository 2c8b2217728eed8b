/**
 * The walk-through (docs/walkthrough.md) and the README's taste of it, run as written against
 * `npm start`'s demo (`telematics serve --demo` in a fresh folder, on a free port): every step's
 * output must be what the file shows.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoProcess } from '../support/demo-process.js';
import { exampleSteps, markdownSection, matchesLine, matchesShown, README_TASTE_HEADING, stepOutputs, WALKTHROUGH_FILE, walkthroughScript } from '../support/readme-examples.js';
import { scaled } from '../support/timeouts.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);

describe('the walk-through', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const taste = markdownSection(readme, README_TASTE_HEADING, 'README.md');
  const walkthroughSteps = exampleSteps(readFileSync(join(ROOT, WALKTHROUGH_FILE), 'utf8'), WALKTHROUGH_FILE);
  // The README's taste runs first, in the same shell: what the front page shows is checked too.
  const steps = [...exampleSteps(taste.text, 'README.md', taste.firstLine), ...walkthroughSteps];

  it('when the README and the walk-through are read, then every curl example of the README is in its taste, which runs with the walk-through, and each command that calls curl shows what it prints or keeps it in a variable', () => {
    const outside = readme.replace(taste.text, '').split('\n').filter((l) => /\bcurl\s/.test(l) && !l.includes('curl lines'));
    expect(outside).toEqual([]);
    expect(steps.length - walkthroughSteps.length).toBeGreaterThan(2);
    expect(walkthroughSteps.length).toBeGreaterThan(20);
    for (const step of steps) {
      if (!/\bcurl\s/.test(step.command) || step.expected.length > 0) continue;
      expect(step.command, `${step.file}:${step.line} prints nothing, so its curl output must be captured`).toMatch(/^\s*[A-Z_]+=\$\(curl/m);
    }
    // A JSON answer has no newline of its own: a curl that shows one on the terminal adds it.
    const code = (command: string) => command.replace(/\s+#.*$/gm, '').replace(/'[^']*'/g, "''");
    const bare = steps.filter((s) => /^curl -si? /.test(s.command) && !/^curl -si? -w '\\n' /.test(s.command) && !/\|| -o |-sN/.test(code(s.command)));
    expect(bare.map((s) => `${s.file}:${s.line} ${s.command.split('\n')[0]}`)).toEqual([]);
  });

  it('when a section holds shell output lines, then it ends only at a heading of its level or higher outside code, and its steps keep their file and line', () => {
    const text = ['# Title', '', '## Try', '', '```sh', 'echo hi', '# hi', '```', '', '### Deeper', '', '## Next', ''].join('\n');
    const section = markdownSection(text, '## Try', 'made.md');
    expect(section).toEqual({ text: ['## Try', '', '```sh', 'echo hi', '# hi', '```', '', '### Deeper', '', ''].join('\n'), firstLine: 3 });
    expect(exampleSteps(section.text, 'made.md', section.firstLine)).toEqual([{ command: 'echo hi', expected: ['hi'], file: 'made.md', line: 6 }]);
    expect(() => markdownSection(text, '## Missing', 'made.md')).toThrow('made.md has no "## Missing" section');
  });

  it('when an answer differs from what is shown, then the rules see it', () => {
    expect(matchesShown(['{"status":"ok"}'], '{"status":"ok"}')).toBe(true);
    expect(matchesShown(['{"status":"ok"}'], '{"status":"down"}')).toBe(false);
    expect(matchesShown(['{"id":"…","status":"Pending"}'], '{"id":"3f0c","status":"Error"}')).toBe(false);
    expect(matchesShown(['HTTP/1.1 401 Unauthorized', '…', '{"detail":"Not authenticated."}'], 'HTTP/1.1 401 Unauthorized\r\nx: 1\r\ny: 2\r\n\r\n{"detail":"Not authenticated."}')).toBe(true);
    expect(matchesShown(['HTTP/1.1 401 Unauthorized', '{"detail":"Not authenticated."}'], 'HTTP/1.1 401 Unauthorized\nx: 1\n{"detail":"Not authenticated."}')).toBe(false);
    expect(matchesShown([], '')).toBe(true);
    expect(matchesShown([], 'curl: (7) Failed to connect')).toBe(false);
    expect(matchesLine('a…b…c', 'abc')).toBe(true);
    expect(matchesLine('a…b…c', 'acb')).toBe(false);
    expect(matchesLine('ab…ba', 'aba')).toBe(false);
    // A `…` for a whole JSON string cannot swallow the objects after it (a list shown shorter than it is).
    expect(matchesLine('[{"v":"1","at":"…"}]', '[{"v":"1","at":"x"}]')).toBe(true);
    expect(matchesLine('[{"v":"1","at":"…"}]', '[{"v":"1","at":"x"},{"v":"2","at":"y"}]')).toBe(false);
    expect(matchesLine('{"id":"…","n":…}', '{"id":"a","n":1,"m":{"k":"v"}}')).toBe(true);
    expect(matchesLine('{"id":"…","n":1}', '{"id":"a","x":"b","n":1}')).toBe(false);
  });

  describe('run against npm start\'s demo', () => {
    let folder: string;
    let demo: DemoProcess | undefined;

    beforeAll(async () => {
      folder = mkdtempSync(join(tmpdir(), 'telematics-readme-'));
      // `npm start` is `node bin/telematics.js serve --demo`; only the ports differ (free ones).
      const deadline = Date.now() + scaled(90_000);
      demo = await startDemo(folder, {}, deadline);
      // The walk-through reads trips, so it starts once the first vehicle's trips are found.
      const { BASE, CLIENT_ID, CLIENT_SECRET } = demo.values;
      const { token } = await (await fetch(`${BASE}/token`, { method: 'POST', body: new URLSearchParams({ client_id: CLIENT_ID!, client_secret: CLIENT_SECRET! }) })).json() as { token: string };
      for (;;) {
        const trips = await fetch(`${BASE}/vehicle-trips`, {
          method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ vins: ['9BWZZZ377VT004251'], datapoints: ['start_date_time'] }),
        });
        if (trips.status === 200 && ((await trips.json()) as Record<string, unknown[]>)['9BWZZZ377VT004251']!.length > 0) break;
        await demo.pause('trips', deadline);
      }
    }, scaled(120_000));

    afterAll(async () => {
      await demo?.stop();
      rmSync(folder, { recursive: true, force: true });
    });

    it('when every example runs in one shell, in order, then each answers what its file shows', async () => {
      const script = join(folder, 'walkthrough.sh');
      writeFileSync(script, walkthroughScript(steps));
      const { stdout } = await run('bash', ['--noprofile', '--norc', script], { cwd: folder, env: { PATH: process.env.PATH, HOME: folder }, maxBuffer: 256 * 1024 * 1024, timeout: scaled(150_000) })
        .catch((error: { stdout?: string; message: string }) => ({ stdout: error.stdout ?? error.message }));
      const outputs = stepOutputs(stdout, steps.length);
      const differences = steps.flatMap((step, i) => matchesShown(step.expected, outputs[i]!) ? [] : [
        `${step.file}:${step.line}\n${step.command}\n--- shown\n${step.expected.join('\n') || '(nothing)'}\n--- printed\n${clip(outputs[i]!)}`,
      ]);
      expect(differences.join('\n\n')).toBe('');
    }, scaled(180_000));
  });
});

/** Long answers (a day of records) cut for the failure message. */
function clip(text: string): string {
  return text.length <= 600 ? text || '(nothing)' : `${text.slice(0, 400)} … ${text.slice(-150)}`;
}
