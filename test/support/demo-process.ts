/**
 * `npm start`'s demo as a child process (`telematics serve --demo`) in a folder of the test's, on
 * free ports: ready once the simulated fleet's history is stored and `data/demo.env` is written.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './service-process.js';
import { scaled } from './timeouts.js';

export interface DemoProcess {
  /** data/demo.env's variables: BASE, CLIENT_ID, CLIENT_SECRET, SIGN_SECRET, … */
  readonly values: Readonly<Record<string, string>>;
  output(): string;
  /** Waits `ms`, or throws (with the demo's output) once the demo exited or `deadline` passed. */
  pause(what: string, deadline: number, ms?: number): Promise<void>;
  /** SIGTERM, resolved once it exited. */
  stop(): Promise<void>;
}

/**
 * The first demo application's credentials as `serve --demo` prints them (its `client_id`,
 * `client_secret` and `sign_secret` lines, in that order).
 */
export function printedDemoCredentials(output: string): { clientId: string; clientSecret: string; signSecret: string } {
  const found = /client_id=(demo-acme-dispatch)\n\s+client_secret=(\S+)\n\s+sign_secret=(\S+)/.exec(output);
  if (found === null) throw new Error(`no demo credentials in the output:\n${output}`);
  return { clientId: found[1]!, clientSecret: found[2]!, signSecret: found[3]! };
}

/** Starts the demo in `folder` with `env` (beside PATH, HOME and free ports); ready before `deadline` (epoch ms). */
export async function startDemo(folder: string, env: NodeJS.ProcessEnv = {}, deadline = Date.now() + scaled(90_000)): Promise<DemoProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--demo'], {
    cwd: folder,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', TELEMATICS_TELTONIKA_PORT: '0', TELEMATICS_OSMAND_PORT: '0', TELEMATICS_GT06_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => { output += String(chunk); });
  child.stderr!.on('data', (chunk) => { output += String(chunk); });
  const demo = {
    output: () => output,
    async pause(what: string, deadline: number, ms = 200) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the demo did not get ready (${what}):\n${output}`);
      await new Promise((r) => setTimeout(r, ms));
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
  const envFile = join(folder, 'data', 'demo.env');
  try {
    while (!output.includes('simulated fleet backfill: ') || !existsSync(envFile)) await demo.pause('backfill', deadline);
  } catch (error) {
    await demo.stop();
    throw error;
  }
  const lines = readFileSync(envFile, 'utf8').split('\n').filter((l) => /^[A-Z_]+=/.test(l));
  const values = Object.fromEntries(lines.map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]));
  return { ...demo, values };
}
