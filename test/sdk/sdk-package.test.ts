/**
 * The SDK as a user gets it: `npm pack`, installed into an empty folder, running the README's
 * quick start there against `npm start`'s demo (a real `telematics serve --demo` process), and
 * every script of examples/ against the same demo.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoProcess } from '../support/demo-process.js';
import { scaled } from '../support/timeouts.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const EXAMPLES = join(ROOT, 'examples');

/** The README's block marked ```js quick-start. */
export function quickStartOf(readme: string): string {
  const match = /```js quick-start\n([\s\S]*?)```/.exec(readme);
  if (match === null) throw new Error('packages/sdk/README.md has no ```js quick-start block');
  return match[1]!;
}

describe('@telematics/sdk as a package, against the demo', () => {
  let folder: string;
  let demo: DemoProcess | undefined;
  let demoEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'telematics-sdk-'));
    mkdirSync(join(folder, 'demo'));
    // `npm start` with free ports and a shorter history so it is ready sooner; nothing opened for
    // the receiver example, which the demo lets post to loopback on its own.
    demo = await startDemo(join(folder, 'demo'), { TELEMATICS_SIM_BACKFILL: '3h' });
    demoEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...demo.values };
  }, scaled(120_000));

  afterAll(async () => {
    await demo?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('when packed, then the tarball holds the built code, types and README and no runtime dependency; installed in an empty folder, the README quick start runs', async () => {
    const packed = JSON.parse((await run('npm', ['pack', '--workspace=@telematics/sdk', '--pack-destination', folder, '--json'], { cwd: ROOT })).stdout) as {
      filename: string; size: number; unpackedSize: number; files: { path: string }[];
    }[];
    const [info] = packed;
    const paths = info!.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/api.d.ts']));
    expect(paths.filter((p) => !p.startsWith('dist/') && !['package.json', 'README.md'].includes(p))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/sdk/package.json'), 'utf8')) as { dependencies?: object };
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);

    const project = join(folder, 'try-telematics');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'try-telematics', private: true, type: 'module' }));
    await run('npm', ['install', join(folder, info!.filename), '--offline', '--no-audit', '--no-fund'], { cwd: project });
    expect(readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['@telematics']);
    // Its types compile in a plain Node TypeScript project: no DOM library, declarations checked.
    writeFileSync(join(project, 'check.ts'), "import { TelematicsClient, type TelematicsEvent } from '@telematics/sdk';\n"
      + "const client = new TelematicsClient({ baseUrl: 'http://localhost', clientId: 'a', clientSecret: 'b' });\n"
      + "export const speeds = client.vehicleData.query({ vins: ['v'], datapoints: ['speed'] });\nexport type Event = TelematicsEvent;\n");
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022'], types: ['node'], strict: true, skipLibCheck: false, noEmit: true,
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['check.ts'],
    }));
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project]);
    writeFileSync(join(project, 'quick-start.mjs'), quickStartOf(readFileSync(join(ROOT, 'packages/sdk/README.md'), 'utf8')));
    const { stdout } = await run(process.execPath, ['quick-start.mjs'], { cwd: project, env: demoEnv, timeout: scaled(150_000) });
    expect(stdout).toMatch(/^9BWZZZ377VT004251 {2}/m);
    expect(stdout).toMatch(/^\d+ records; at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: /m);
    expect(stdout).toMatch(/^diagnostics Success: /m);
  }, scaled(180_000));

  it.each(readdirSync(EXAMPLES).filter((name) => name.endsWith('.mjs')))('when examples/%s runs against the demo, then it ends well', async (name) => {
    const args = { 'ignition-with-confirmation.mjs': ['--yes'], 'follow-events.mjs': ['--for', '3'] }[name] ?? [];
    const { stdout } = await run(process.execPath, [join(EXAMPLES, name), ...args], { cwd: ROOT, env: demoEnv, timeout: scaled(150_000) });
    const expected: Record<string, RegExp> = {
      'ignition-with-confirmation.mjs': /^immobilized: .*$[\s\S]*^enable_ignition: Success$|^refused: Commands blocked\.$/m,
      'follow-events.mjs': /^resume later with after = \S+$/m,
      'webhook-receiver.mjs': /^command \S+ ended Success$/m,
    };
    // A new example needs its line here: what shows it ended well.
    expect(Object.keys(expected)).toContain(name);
    expect(stdout).toMatch(expected[name]!);
  }, scaled(180_000));
});
