/**
 * `nats-server` processes with JetStream for the queue suite: one, or a cluster of three on
 * loopback (routes between all), each in its own temporary store directory, stopped and removed
 * by `close()`. The same setup as test/support/nats-servers.ts, for a suite that runs on dist/.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './processes.mjs';

const BIN = process.env.NATS_SERVER_BIN ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');

export async function startNats(count = 1) {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-bench-nats-'));
  const ports = [];
  const free = await freePorts(2 * count);
  for (let i = 0; i < count; i++) ports.push({ client: free[2 * i], cluster: free[2 * i + 1] });
  const children = ports.map((p, i) => {
    const args = ['-a', '127.0.0.1', '-p', String(p.client), '-n', `b${i + 1}`, '-js', '-sd', join(dir, `b${i + 1}`)];
    if (count > 1) {
      args.push('--cluster_name', 'bench', '--cluster', `nats://127.0.0.1:${p.cluster}`, '--routes', ports.map((o) => `nats://127.0.0.1:${o.cluster}`).join(','));
    }
    const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => { out += c; });
    child.stderr.on('data', (c) => { out += c; });
    return { child, output: () => out };
  });
  const deadline = Date.now() + 15_000;
  while (!children.every((c) => c.output().includes('Server is ready'))) {
    if (children.some((c) => c.child.exitCode !== null) || Date.now() > deadline) {
      for (const c of children) c.child.kill('SIGKILL');
      throw new Error(`nats-server did not start:\n${children.map((c) => c.output()).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    urls: ports.map((p) => `nats://127.0.0.1:${p.client}`).join(','),
    async close() {
      await Promise.all(children.map(({ child }) => new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      })));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
