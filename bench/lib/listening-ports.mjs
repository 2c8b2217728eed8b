/**
 * The TCP ports a process listens on, from /proc (Linux): its socket descriptors matched with
 * the LISTEN entries of /proc/net/tcp and tcp6. It finds a port the service picked itself
 * (`--teltonika-port 0`) when its log level is too quiet to say which.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const LISTEN = '0A';

export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  const ports = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines;
    try { lines = readFileSync(table, 'utf8').split('\n').slice(1); } catch { continue; }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // f[1] local address:port (hex), f[3] state, f[9] inode
      if (f.length > 9 && f[3] === LISTEN && inodes.has(f[9])) ports.add(Number.parseInt(f[1].split(':')[1], 16));
    }
  }
  return [...ports];
}

/** The one port `pid` listens on besides `known`, once it does (polled for up to `timeoutMs`). */
export async function otherListeningPort(pid, known, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const others = listeningPorts(pid).filter((p) => !known.includes(p));
    if (others.length === 1) return others[0];
    if (others.length > 1) throw new Error(`process ${pid} listens on ${others.join(', ')} besides ${known.join(', ')}: which is the one sought?`);
    if (Date.now() > deadline) throw new Error(`process ${pid} opened no listener besides ${known.join(', ')} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
