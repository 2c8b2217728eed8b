/**
 * A PostgreSQL cluster of the test's own, so the test may stop and start it (the machine's shared
 * server must stay up): initdb into a temporary directory, trust authentication, listening on a
 * free loopback port. PostgreSQL refuses to run as root, so as root it runs as the `postgres`
 * user (runuser). Removed when the test ends.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { scaled } from './timeouts.js';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return join(root, versions[0]!, 'bin');
}

export interface OwnedPostgres {
  /** postgres://postgres@127.0.0.1:<port>/telematics */
  readonly url: string;
  /** Asynchronous, so a test's load keeps running while the server goes down or comes up. */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): void;
}

export async function startOwnedPostgres(): Promise<OwnedPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'telematics-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const command = (file: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, file), ...args]] : [join(bin, file), args]);
  const run = (file: string, args: string[]) => execFileSync(...command(file, args), { stdio: ['ignore', 'pipe', 'pipe'], timeout: scaled(60_000) }).toString();
  const runAsync = async (file: string, args: string[]) => { await promisify(execFile)(...command(file, args), { timeout: scaled(60_000) }); };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const startArgs = ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'];
  const stopArgs = ['-D', data, '-m', 'fast', '-w', 'stop'];
  run('pg_ctl', startArgs);
  execFileSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-q', '-c', 'create database telematics'], { stdio: 'ignore' });
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    try { run('pg_ctl', stopArgs); } catch { /* already stopped */ }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', destroy);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/telematics`,
    stop: () => runAsync('pg_ctl', stopArgs),
    start: () => runAsync('pg_ctl', startArgs),
    destroy,
  };
}
