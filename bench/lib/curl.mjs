/**
 * One request by curl, in its own process: what a client on another machine would see of a large
 * response (time to first byte, total), with none of its buffers in the benchmark's or the
 * service's process.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Resolves to { status, ttfbMs, totalMs, bytes, encoding }; the body is discarded as it arrives,
 * or written to `output`. With `acceptEncoding` (`br`, `gzip`) curl asks for that coding only and
 * decodes as it reads, as a client would; `bytes` is then the compressed size, as sent, and
 * `encoding` the response's Content-Encoding ('' when none).
 */
export async function curlRequest(url, { method = 'GET', headers = {}, body, acceptEncoding, output = '/dev/null' } = {}) {
  const args = ['-s', '-o', output, '-w', '%{http_code} %{time_starttransfer} %{time_total} %{size_download} %header{content-encoding}', '-X', method,
    // No `Expect: 100-continue` round trip for bodies over 1 KiB.
    '-H', 'Expect:'];
  if (acceptEncoding !== undefined) args.push('--compressed', '-H', `Accept-Encoding: ${acceptEncoding}`);
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (body !== undefined) args.push('--data-binary', body);
  args.push(url);
  const { stdout } = await run('curl', args, { maxBuffer: 1024 * 1024 });
  const [status, ttfb, total, size, encoding = ''] = stdout.trim().split(' ');
  return { status: Number(status), ttfbMs: Number(ttfb) * 1000, totalMs: Number(total) * 1000, bytes: Number(size), encoding };
}
