/**
 * The load generator: autocannon in its own process (spawned by load.mjs), so its CPU is never
 * the service's. Reads a plan (JSON file named by argv[2]) of one or more runs, fires them
 * concurrently, and prints one JSON line with each run's counts and latency percentiles.
 *
 * A run sends `body`, or cycles through `bodiesFile` (one body per line): with `amount` equal to
 * the number of lines, each body is sent exactly once.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));

function fire(run) {
  const bodies = run.bodiesFile ? readFileSync(run.bodiesFile, 'utf8').split('\n').filter((l) => l.length > 0) : undefined;
  let next = 0;
  const request = { method: run.method ?? 'GET', headers: run.headers ?? {} };
  if (run.body !== undefined) request.body = run.body;
  if (bodies) request.setupRequest = (req) => ({ ...req, body: bodies[next++ % bodies.length] });
  if (run.paths) request.setupRequest = (req) => ({ ...req, path: run.paths[next++ % run.paths.length] });
  return new Promise((resolve, reject) => {
    autocannon({
      url: run.url,
      connections: run.connections ?? 10,
      pipelining: run.pipelining ?? 1,
      duration: run.amount ? undefined : plan.duration,
      amount: run.amount,
      timeout: run.timeout ?? 30,
      requests: [request],
    }, (error, result) => {
      if (error) return reject(error);
      resolve({
        name: run.name,
        ok: result['2xx'],
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        seconds: result.duration,
        rps: result['2xx'] / result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
        statusCodes: result.statusCodeStats,
      });
    });
  });
}

const results = await Promise.all(plan.runs.map(fire));
process.stdout.write(`${JSON.stringify(results)}\n`);
