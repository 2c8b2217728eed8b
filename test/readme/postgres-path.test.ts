/**
 * docs/deployment.md's PostgreSQL path, run as written on a fresh role and database of the test
 * server: the first block in one bash (its last command, `serve`, keeps running, as in the
 * reader's first terminal), then the second block in another bash that shares nothing with the
 * first but the files it wrote, as a second terminal would. It ends with every vehicle of the
 * shipped examples/fleet.json reporting a record through the API. The README's "Run it for
 * real" block must be the first block's commands, so neither can drift from what runs here.
 *
 * What differs from a reader's machine, each a substitution that must match: the role and
 * database get a name of their own (and the test server's address), /etc/telematics a folder of
 * the test's, the ports free ones, the API listens on loopback; `sudo -u postgres` reaches the
 * test server's administrator through a stand-in `sudo` on PATH. The simulation fills 30 minutes
 * of history instead of two days (TELEMATICS_SIM_BACKFILL, which the docs leave unset): the test
 * needs records, not history.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../support/free-port.js';
import { exampleSteps, markdownSection, matchesShown, stepOutputs, walkthroughScript, type ExampleStep } from '../support/readme-examples.js';
import { scaled } from '../support/timeouts.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const ADMIN_URL = process.env.TEST_DATABASE_URL;
const run = promisify(execFile);
const SHIPPED_VINS = (JSON.parse(readFileSync(join(ROOT, 'examples/fleet.json'), 'utf8')) as { companies: { vehicles: { vin: string }[] }[] })
  .companies.flatMap((c) => c.vehicles.map((v) => v.vin));

/** `text` with each `[from, to]` replaced everywhere; a `from` that is no longer in the docs fails the test. */
function substituted(text: string, file: string, pairs: readonly (readonly [string, string])[]): string {
  return pairs.reduce((out, [from, to]) => {
    if (!out.includes(from)) throw new Error(`${file} no longer has "${from}": update test/readme/postgres-path.test.ts with the docs`);
    return out.split(from).join(to);
  }, text);
}

const isServe = (step: ExampleStep) => /\bnpx telematics serve\b/.test(step.command);

describe.skipIf(ADMIN_URL === undefined)('the PostgreSQL path of docs/deployment.md, on a fresh role and database', () => {
  const name = `tlm_path_${process.pid}_${randomBytes(3).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'telematics-pg-path-'));
  const etc = join(dir, 'etc', 'telematics');
  let ports: number[] = [];
  let firstTerminal: ChildProcess | undefined;
  let firstOutput = '';
  let steps: { first: ExampleStep[]; second: ExampleStep[] };

  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  /** The shells' environment: none of the test's own database or key settings, the stand-in sudo first on PATH. */
  function shellEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, USER: userInfo().username, TELEMATICS_SIM_BACKFILL: '30m' };
    for (const key of Object.keys(env)) if (key === 'DATABASE_URL' || key.startsWith('PG') || (key.startsWith('TELEMATICS_') && key !== 'TELEMATICS_SIM_BACKFILL')) delete env[key];
    return env;
  }

  beforeAll(async () => {
    ports = await freePorts(3);
    const [api, teltonika, osmand] = ports as [number, number, number];
    const server = new URL(ADMIN_URL!);
    const pairs = [
      ['/etc/telematics', etc],
      ['ROLE telematics ', `ROLE ${name} `],
      ['DATABASE telematics OWNER telematics', `DATABASE ${name} OWNER ${name}`],
      ['postgres://telematics:', `postgres://${name}:`],
      ['@127.0.0.1/telematics', `@${server.host}/${name}`],
      ['--host 0.0.0.0', '--host 127.0.0.1'],
      ['--port 8080', `--port ${api}`],
      ['http://127.0.0.1:8080/', `http://127.0.0.1:${api}/`],
      ['--teltonika-port 5027', `--teltonika-port ${teltonika}`],
      ['--osmand-port 5055', `--osmand-port ${osmand}`],
    ] as const;
    const section = markdownSection(readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8'), '## PostgreSQL', 'docs/deployment.md');
    const all = exampleSteps(substituted(section.text, 'docs/deployment.md', pairs), 'docs/deployment.md', section.firstLine);
    const serveAt = all.findIndex(isServe);
    steps = { first: all.slice(0, serveAt + 1), second: all.slice(serveAt + 1) };

    // `sudo -u postgres CMD` as the test server's administrator; `sudo CMD` as this user.
    mkdirSync(join(dir, 'bin'));
    const pgEnv = `PGHOST='${server.hostname}' PGPORT='${server.port || '5432'}' PGUSER='${decodeURIComponent(server.username) || 'postgres'}' `
      + `PGPASSWORD='${decodeURIComponent(server.password)}' PGDATABASE='${server.pathname.slice(1) || 'postgres'}'`;
    writeFileSync(join(dir, 'bin', 'sudo'), `#!/bin/sh\nif [ "$1" = "-u" ]; then shift 2; export ${pgEnv}; fi\nexec "$@"\n`);
    chmodSync(join(dir, 'bin', 'sudo'), 0o755);
  });

  afterAll(async () => {
    if (firstTerminal?.pid !== undefined && firstTerminal.exitCode === null) {
      const exited = new Promise((r) => firstTerminal!.once('exit', r));
      process.kill(-firstTerminal.pid, 'SIGTERM');
      const killer = setTimeout(() => { if (firstTerminal!.exitCode === null) process.kill(-firstTerminal!.pid!, 'SIGKILL'); }, scaled(15_000));
      await exited;
      clearTimeout(killer);
    }
    if (ADMIN_URL !== undefined) {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin(`DROP ROLE IF EXISTS ${name}`);
    }
    rmSync(dir, { recursive: true, force: true });
  }, scaled(60_000));

  it('when the README\'s block is read, then it is the first block\'s commands, in order', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const taste = markdownSection(readme, '## Run it for real', 'README.md');
    const docs = markdownSection(readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8'), '## PostgreSQL', 'docs/deployment.md');
    const commands = (text: string) => exampleSteps(text, '').map((s) => s.command.split('\n')).flat();
    const first = commands(docs.text);
    expect(commands(taste.text)).toEqual(first.slice(0, first.findIndex((c) => /\bnpx telematics serve\b/.test(c)) + 1));
    // Bare `telematics` is not on a fresh clone's PATH.
    expect(first.filter((c) => /^telematics /.test(c))).toEqual([]);
  });

  it('when both blocks run, then the service starts on the new database and every shipped vehicle\'s newest record is read back', async () => {
    const [api] = ports as [number];
    const deadline = Date.now() + scaled(150_000);
    // Bash replaces itself with the serve step, the block's last: it runs in the foreground as in a terminal.
    const script = walkthroughScript(steps.first).replace(/\n$/, '').split('\n');
    script[script.length - 1] = `exec ${script[script.length - 1]}`;
    expect(script[script.length - 1]).toMatch(/^exec npx telematics serve /);
    firstTerminal = spawn('bash', ['-c', script.join('\n')], { cwd: ROOT, env: shellEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    firstTerminal.stdout!.on('data', (chunk) => { firstOutput += String(chunk); });
    firstTerminal.stderr!.on('data', (chunk) => { firstOutput += String(chunk); });

    // The reader waits until the log shows the fleet reporting; the test until every vehicle has a record.
    const credentials = join(etc, 'fleet-credentials.json');
    const reporting = new Set<string>();
    for (;;) {
      if (firstTerminal.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not get every vehicle reporting (${[...reporting].join(', ')}):\n${firstOutput}`);
      await new Promise((r) => setTimeout(r, 1000));
      if (!existsSync(credentials)) continue;
      const secret = /"client_secret": "([^"]+)"/.exec(readFileSync(credentials, 'utf8'))?.[1];
      const answer = await fetch(`http://127.0.0.1:${api}/token`, { method: 'POST', body: new URLSearchParams({ client_id: 'acme-dispatch', client_secret: secret ?? '' }) }).catch(() => undefined);
      if (answer?.status !== 200) continue;
      const { token } = await answer.json() as { token: string };
      const latest = await (await fetch(`http://127.0.0.1:${api}/vehicle-data/latest`, { headers: { authorization: `Bearer ${token}` } })).json() as { vin: string; record: unknown }[];
      for (const v of latest) if (v.record !== null) reporting.add(v.vin);
      if (SHIPPED_VINS.every((vin) => reporting.has(vin))) break;
    }

    const before = stepOutputs(firstOutput, steps.first.length);
    steps.first.slice(0, -1).forEach((step, i) => {
      expect(matchesShown(step.expected, before[i]!), `${step.file}:${step.line}\n${step.command}\nprinted:\n${before[i]}`).toBe(true);
    });
    expect(before[steps.first.length - 1]).not.toMatch(/"level":(50|60)/);
    expect(before[steps.first.length - 1]).not.toContain('uses the sim connector but the simulation is off');

    const second = await run('bash', ['-c', walkthroughScript(steps.second)], { cwd: ROOT, env: shellEnv(), maxBuffer: 64 * 1024 * 1024 });
    const after = stepOutputs(second.stdout, steps.second.length);
    expect(steps.second.at(-1)!.command).toMatch(/\/vehicle-data\/latest/);
    steps.second.forEach((step, i) => {
      expect(matchesShown(step.expected, after[i]!), `${step.file}:${step.line}\n${step.command}\nprinted:\n${after[i]}`).toBe(true);
    });
  }, scaled(180_000));
});
