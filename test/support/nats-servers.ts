/**
 * Real `nats-server` processes with JetStream for tests, each in its own temporary store
 * directory on free loopback ports: one server, or a cluster of three whose members the test
 * may kill (SIGKILL) and start again on the same ports and directories. Every process and
 * directory is removed when the test ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IngestQueueSettings } from '../../src/queue/ingest-streams.js';
import { freePorts } from './free-port.js';
import { scaled } from './timeouts.js';

/** Debian's package puts it in /usr/sbin, which is not on every user's PATH. */
export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');

const running = new Set<ChildProcess>();
process.once('exit', () => { for (const child of running) child.kill('SIGKILL'); });

export interface NatsNode {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly pid: number | undefined;
  /** Whether the process runs now. */
  readonly up: boolean;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again with the same ports and store directory. */
  restart(): Promise<void>;
}

export interface NatsServers {
  readonly nodes: readonly NatsNode[];
  /** Every node's URL, comma-separated: what `--ingest-queue` takes. */
  readonly urls: string;
  close(): Promise<void>;
}

class Node implements NatsNode {
  #child: ChildProcess | undefined;
  #out = '';
  constructor(readonly name: string, readonly port: number, private readonly args: string[]) {}
  get url() { return `nats://127.0.0.1:${this.port}`; }
  get pid() { return this.#child?.pid; }
  get up() { return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null; }
  output() { return this.#out; }

  async restart(): Promise<void> {
    if (this.up) throw new Error(`${this.name} is running`);
    const child = spawn(NATS_SERVER, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    let missing = false;
    child.once('error', (error: NodeJS.ErrnoException) => { if (error.code === 'ENOENT') missing = true; else this.#out += `${error.message}\n`; });
    child.stdout!.on('data', (c) => { this.#out += String(c); });
    child.stderr!.on('data', (c) => { this.#out += String(c); });
    const started = Date.now();
    // Ready once it accepts client connections.
    for (;;) {
      // The queue's tests fail without it (CI installs it: .ci/run), in one line that says how to get it.
      if (missing) throw new Error(`nats-server not found at ${NATS_SERVER}: install it with "sudo apt-get install nats-server" or set NATS_SERVER_BIN`);
      if (!this.up) throw new Error(`nats-server ${this.name} exited:\n${this.#out}`);
      if (this.#out.includes('Server is ready')) return;
      if (Date.now() - started > scaled(15_000)) throw new Error(`nats-server ${this.name} not ready in ${scaled(15_000) / 1000} s:\n${this.#out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.#child;
    if (!child || !this.up) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

/**
 * One JetStream server, or a cluster of `count` (routes between all of them). `config` is the text
 * of a nats-server configuration file every node also reads (authorization, tls); the flags win.
 */
export async function startNatsServers(count: 1 | 3 = 1, config?: string): Promise<NatsServers> {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-nats-'));
  const configFile = join(dir, 'nats.conf');
  if (config !== undefined) writeFileSync(configFile, config);
  const found = await freePorts(2 * count);
  const ports = Array.from({ length: count }, (_, i) => ({ client: found[2 * i]!, cluster: found[2 * i + 1]! }));
  const nodes = ports.map((p, i) => {
    const name = `n${i + 1}`;
    const args = [...(config === undefined ? [] : ['-c', configFile]), '-a', '127.0.0.1', '-p', String(p.client), '-n', name, '-js', '-sd', join(dir, name)];
    if (count > 1) {
      const routes = ports.map((o) => `nats://127.0.0.1:${o.cluster}`).join(',');
      args.push('--cluster_name', 'telematics-test', '--cluster', `nats://127.0.0.1:${p.cluster}`, '--routes', routes);
    }
    return new Node(name, p.client, args);
  });
  try {
    await Promise.all(nodes.map((n) => n.restart()));
  } catch (error) {
    await Promise.all(nodes.map((n) => n.kill()));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    nodes,
    urls: nodes.map((n) => n.url).join(','),
    async close() {
      await Promise.all(nodes.map((n) => n.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Queue settings for a test against `server`: one replica, 64 MiB, 8 days kept, a 2-s publish
 * timeout and a 5-s ack wait, with what the test needs changed (partitions, credentials, …).
 */
export function testQueueSettings(server: string, changes: Partial<IngestQueueSettings> = {}): IngestQueueSettings {
  return {
    servers: [server], partitions: 1, replicas: 1, maxBytes: 64 * 1024 * 1024, maxAgeMs: 192 * 3_600_000, publishTimeoutMs: 2000, ackWaitMs: 5000,
    ...changes,
  };
}
