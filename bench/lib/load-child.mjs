/**
 * The load generator: autocannon in its own process (spawned by load.mjs), so its CPU is never
 * the service's. Reads a plan (JSON file named by argv[2]) of one or more runs, fires them
 * concurrently, and prints one JSON line with each run's counts and latency percentiles.
 *
 * A run sends `body`, or cycles through `bodiesFile` (one body per line): with `amount` equal to
 * the number of lines, each body is sent exactly once, and `seconds` runs to the last answer.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));

function fire(run) {
  const bodies = run.bodiesFile ? readFileSync(run.bodiesFile, 'utf8').split('\n').filter((l) => l.length > 0) : undefined;
  let next = 0;
  const request = { method: run.method ?? 'GET', headers: run.headers ?? {} };
  if (run.body !== undefined) request.body = run.body;
  if (bodies) request.setupRequest = (req) => ({ ...req, body: bodies[next++ % bodies.length] });
  if (run.paths) request.setupRequest = (req) => ({ ...req, path: run.paths[next++ % run.paths.length] });
  // autocannon ends an `amount` run at its next 1 s sampling tick, not when the last answer
  // arrives; so such a run is timed here, from the start to the last answer.
  const started = performance.now();
  let lastAnswer = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon({
      url: run.url,
      connections: run.connections ?? 10,
      pipelining: run.pipelining ?? 1,
      ...(run.amount ? { amount: run.amount } : { duration: plan.duration }),
      timeout: run.timeout ?? 30,
      requests: [request],
    }, (error, result) => {
      if (error) return reject(error);
      const seconds = run.amount ? (lastAnswer - started) / 1000 : result.duration;
      resolve({
        name: run.name,
        ok: result['2xx'],
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        seconds,
        rps: result['2xx'] / seconds,
        p50: result.latency.p50,
        mean: result.latency.average,
        p99: result.latency.p99,
        max: result.latency.max,
        statusCodes: result.statusCodeStats,
      });
    });
    instance.on('response', () => {
      lastAnswer = performance.now();
    });
  });
}

const results = await Promise.all(plan.runs.map(fire));
process.stdout.write(`${JSON.stringify(results)}\n`);
