/**
 * One request by curl, in its own process: what a client on another machine would see of a large
 * response (time to first byte, total), with none of its buffers in the benchmark's or the
 * service's process.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Resolves to { status, ttfbMs, totalMs, bytes }; the body is discarded as it arrives. */
export async function curlRequest(url, { method = 'GET', headers = {}, body } = {}) {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{time_starttransfer} %{time_total} %{size_download}', '-X', method,
    // No `Expect: 100-continue` round trip for bodies over 1 KiB.
    '-H', 'Expect:'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (body !== undefined) args.push('--data-binary', body);
  args.push(url);
  const { stdout } = await run('curl', args, { maxBuffer: 1024 * 1024 });
  const [status, ttfb, total, size] = stdout.trim().split(' ').map(Number);
  return { status, ttfbMs: ttfb * 1000, totalMs: total * 1000, bytes: size };
}
