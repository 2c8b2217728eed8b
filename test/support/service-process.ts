/**
 * `telematics serve` as a child process, for tests about the process itself: crashes, signals,
 * restarts. Output is collected for failure messages; `ready` waits for the listening line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { devNull } from 'node:os';
import { generateKeyringDocument } from '../../src/security/keyring.js';
import type { DatabaseKind } from './databases.js';
import { scaled } from './timeouts.js';

export const BIN = new URL('../../bin/telematics.js', import.meta.url).pathname;

/** Children still running when the test process ends (a failed test, a crash) die with it. */
const children = new Set<ChildProcess>();
process.once('exit', () => { for (const child of children) child.kill('SIGKILL'); });

/**
 * The environment of a `serve` child on a database of `kind`: this process's, without a
 * DATABASE_URL, and with fresh keys for PostgreSQL (which never creates its own) or none for
 * SQLite (which keeps them beside its file).
 */
export function serveEnv(kind: DatabaseKind, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...extra };
  delete env.DATABASE_URL;
  delete env.TELEMATICS_JWT_KEYS;
  delete env.TELEMATICS_MASTER_KEYS;
  if (kind === 'postgres') {
    const keys = generateKeyringDocument();
    env.TELEMATICS_JWT_KEYS = keys.jwt[0]!.secret;
    env.TELEMATICS_MASTER_KEYS = keys.master[0]!.key;
  }
  return env;
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  /** Sends `signal` and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

export interface ServiceProcessOptions {
  /** The open-file limit the process starts with (util-linux `prlimit`), as a shell's `ulimit -Sn`/`-Hn` would set it. */
  readonly openFiles?: { readonly soft: number; readonly hard: number };
  /**
   * Descriptors the process starts holding besides its standard streams (inherited copies of the
   * null device): what API clients, the database or files would hold, without waiting for them.
   */
  readonly heldDescriptors?: number;
}

/** Starts `telematics serve --port 0 …args` and resolves once it listens (and `readyText` was printed, if given). */
export async function startServiceProcess(args: readonly string[], env: NodeJS.ProcessEnv, readyText?: string, options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  let url = '';
  const started = await launch(['--port', '0', ...args], env, 'listen', options, (out) => {
    const m = /Server listening at (http:\/\/[\d.:]+)/.exec(out);
    if (!m || (readyText !== undefined && !out.includes(readyText))) return false;
    url = m[1]!;
    return true;
  });
  return { ...started, url };
}

export interface UnlistenedServiceProcess {
  readonly child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Starts `telematics serve …args` that opens no listener (`--role workers` without `--ops-port`); resolves once `readyText` is printed. */
export function startUnlistenedServiceProcess(args: readonly string[], env: NodeJS.ProcessEnv, readyText: string): Promise<UnlistenedServiceProcess> {
  return launch(args, env, `print "${readyText}"`, {}, (out) => out.includes(readyText));
}

/** Spawns `serve …args` and resolves once `ready(output)` holds; a process that never gets there is killed. */
function launch(args: readonly string[], env: NodeJS.ProcessEnv, what: string, options: ServiceProcessOptions, ready: (out: string) => boolean): Promise<UnlistenedServiceProcess> {
  const command = [process.execPath, BIN, 'serve', ...args];
  // prlimit execs the command in its own process: the child's pid and signals are the service's.
  if (options.openFiles) command.unshift('prlimit', `--nofile=${options.openFiles.soft}:${options.openFiles.hard}`, '--');
  const held = options.heldDescriptors ? openSync(devNull, 'r') : undefined;
  const child = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe', ...Array<number>(options.heldDescriptors ?? 0).fill(held!)] });
  if (held !== undefined) closeSync(held);
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout!.on('data', (chunk) => { out += String(chunk); });
  child.stderr!.on('data', (chunk) => { out += String(chunk); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve, reject) => {
    // A process that never got ready is killed: a test failing here must not leave it running.
    const within = scaled(20_000);
    const timer = setTimeout(() => { clearInterval(poll); child.kill('SIGKILL'); reject(new Error(`serve did not ${what} in ${within / 1000} s:\n${out}`)); }, within);
    void exited.then(({ code }) => { clearInterval(poll); clearTimeout(timer); reject(new Error(`serve exited with ${code}:\n${out}`)); });
    const poll = setInterval(() => {
      if (!ready(out)) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve({
        child,
        output: () => out,
        async stop(signal = 'SIGTERM') {
          const started = Date.now();
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return { ...(await exited), ms: Date.now() - started };
        },
      });
    }, 25);
  });
}
