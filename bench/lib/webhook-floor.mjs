/**
 * The floor of webhook delivery, in its own process (spawned by webhooks.mjs): `count` signed
 * POSTs to the receiver, `concurrency` in flight (each worker sends its next when its answer has
 * been read), through one keep-alive agent: what the service's sender does per endpoint, with no
 * database. Each body is built, stringified and signed (signatureHeader, the service's code) when
 * it is sent, shaped like the service's (`{id, type, timestamp, data}`), with the same headers.
 * `warmup` POSTs go first, untimed. Prints one JSON line: seconds from the first timed POST to
 * the last answer, and the count of 2xx answers.
 *
 *   node webhook-floor.mjs URL SECRET VIN COUNT WARMUP CONCURRENCY
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { eventIdOf } from '../../dist/domain/events.js';
import { signatureHeader } from '../../dist/domain/webhook-signature.js';

const [url, secret, vin, ...numbers] = process.argv.slice(2);
const [count, warmup, concurrency] = numbers.map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const target = new URL(url);

function post(n) {
  const id = eventIdOf('bench-floor', n);
  const now = Date.now();
  const body = JSON.stringify({ id, type: 'vehicle.online', timestamp: new Date(now).toISOString(), data: { vin, n, appended_at: now } });
  const timestamp = Math.floor(now / 1000);
  const headers = {
    'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([secret], id, timestamp, body),
    'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'telematics-bench-floor',
  };
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method: 'POST', agent, headers }, (res) => {
      res.on('data', () => {});
      res.once('end', () => resolve(res.statusCode));
    });
    req.once('error', reject);
    req.end(body);
  });
}

async function send(from, total) {
  let next = from;
  let ok = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < from + total) {
      const status = await post(next++);
      if (status >= 200 && status <= 299) ok += 1;
    }
  }));
  return ok;
}

await send(0, warmup);
const t0 = performance.now();
const ok = await send(warmup, count);
const seconds = (performance.now() - t0) / 1000;
agent.destroy();
process.stdout.write(`${JSON.stringify({ seconds, ok })}\n`);
