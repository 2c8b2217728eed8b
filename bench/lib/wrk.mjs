/**
 * Load from wrk (Debian's package), in its own process: a C load generator that needs a fraction
 * of the CPU autocannon does, so on a 2-core machine the service, not the generator, is what a
 * figure measures. One thread, `connections` keep-alive connections, a
 * fixed method, headers and body per run; the Lua `done` hook prints the summary as JSON.
 * Resolves to the same shape as load-child.mjs's runs (rps counts 2xx and 3xx answers: wrk
 * counts the rest as `status` errors, reported as non2xx).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const luaString = (text) => `"${String(text).replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;

function script(run) {
  const lines = [`wrk.method = ${luaString(run.method ?? 'GET')}`];
  for (const [name, value] of Object.entries(run.headers ?? {})) lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  if (run.body !== undefined) lines.push(`wrk.body = ${luaString(run.body)}`);
  lines.push(`
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"duration":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p99":%d,"mean":%f,"max":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max))
end`);
  return lines.join('\n');
}

/** True when wrk can be run here. */
export async function wrkAvailable() {
  return new Promise((resolve) => execFile('wrk', ['--version'], (error) => resolve(!error || error.code !== 'ENOENT')));
}

/** One run of `duration` seconds; latencies in ms. */
export async function wrk(run, duration) {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-wrk-'));
  try {
    const file = join(dir, 'run.lua');
    writeFileSync(file, script(run));
    const args = ['-t1', `-c${run.connections ?? 16}`, `-d${duration}s`, `--timeout=${run.timeout ?? 30}s`, '-s', file, run.url];
    const stdout = await new Promise((resolve, reject) => {
      execFile('wrk', args, { maxBuffer: 4 * 1024 * 1024 }, (error, out, err) => {
        if (error) reject(new Error(`wrk failed: ${err || error.message}`));
        else resolve(out);
      });
    });
    const line = stdout.trim().split('\n').find((l) => l.startsWith('{"requests"'));
    if (line === undefined) throw new Error(`wrk printed no summary: ${stdout}`);
    const s = JSON.parse(line);
    const seconds = s.duration / 1e6;
    const ok = s.requests - s.status;
    return {
      name: run.name, ok, non2xx: s.status, errors: s.connect + s.read + s.write, timeouts: s.timeout, seconds, rps: ok / seconds,
      p50: s.p50 / 1000, mean: s.mean / 1000, p99: s.p99 / 1000, max: s.max / 1000, statusCodes: s.status > 0 ? { 'not 2xx/3xx': s.status } : {},
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
