/**
 * The processes a benchmark runs beside itself: the service as an operator runs it
 * (`telematics serve`), the floor (a bare Fastify route), the simulated automaker
 * (`telematics oem-sim`), and a webhook receiver. Each is its own OS process, so the load
 * generator, the service and the peer never share a thread; their output goes to a log file for
 * when something fails.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'bin', 'telematics.js');
/**
 * The flags the CLI's shebang gives node (V8's young generation fixed: bin/telematics.js says
 * why). Every process launched here runs with them: the service and the simulated automaker as
 * an operator's `telematics …` does, the floors too, so a ratio compares the same Node settings.
 */
export const NODE_FLAGS = readFileSync(CLI, 'utf8').split('\n', 1)[0].split(' ').filter((word) => word.startsWith('--'));

export async function freePort() {
  return (await freePorts(1))[0];
}

/**
 * `count` distinct free ports, each held until all are found: ports found one after another, each
 * closed at once, can repeat (a NATS cluster's node once got another node's route port, and exited).
 */
export async function freePorts(count) {
  const servers = [];
  try {
    const ports = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      ports.push(await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server.address().port));
      }));
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => (s.listening ? s.close(resolve) : resolve()))));
  }
}

async function waitFor(url, child, logFile, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}; see ${logFile}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms; see ${logFile}`);
}

function launch(args, { env, logFile, nodeArgs = [] }) {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...NODE_FLAGS, ...nodeArgs, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return child;
}

function handle(child, url, logFile) {
  return {
    url,
    pid: child.pid,
    logFile,
    /** Resident set size of the process now, MB (Linux). */
    rssMb() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : Number.NaN;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * `telematics serve` on `database` with keys from the environment, no in-process simulator, and
 * no request limits (load comes from one address and one application by design).
 * `nodeArgs` are Node's own flags (BENCH_PROFILE_DIR set: `--cpu-prof` into it); `opsOnly` is for a process with no API
 * listener (`--role writers`): its operations listener takes the port. `readyTimeoutMs` (60 s by
 * default) bounds the wait for /readyz.
 */
export async function startService({ database, keys, logFile, settings = {}, nodeArgs, opsOnly = false, readyTimeoutMs }) {
  const port = await freePort();
  const env = {
    // A process without the API (`--role writers`) is waited for on its operations listener.
    ...(opsOnly ? { TELEMATICS_OPS_PORT: String(port) } : {}),
    DATABASE_URL: database, PORT: String(port), HOST: '127.0.0.1', TELEMATICS_SIM: 'false',
    TELEMATICS_JWT_KEYS: keys.jwt, TELEMATICS_MASTER_KEYS: keys.master, LOG_LEVEL: 'info',
    TELEMATICS_TOKEN_RATE_CLIENT: '0', TELEMATICS_TOKEN_RATE_ADDRESS: '0', TELEMATICS_COMMAND_RATE_APP: '0', ...settings,
  };
  // BENCH_PROFILE_DIR: every service process writes a CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE_DIR;
  const child = launch([CLI, 'serve'], { env, logFile, nodeArgs: nodeArgs ?? (profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : undefined) });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, child, logFile, readyTimeoutMs);
  return handle(child, url, logFile);
}

/**
 * A Fastify server with one route answering a constant: the floor of every HTTP figure; with
 * `oemUrl` (and a VIN that automaker knows) also POST /floor-oem, one automaker exchange per request.
 */
export async function startFloorServer({ logFile, oemUrl, vin, vehicleJson }) {
  const port = await freePort();
  const env = vehicleJson === undefined ? {} : { FLOOR_VEHICLE_JSON: vehicleJson };
  const child = launch([join(ROOT, 'bench', 'lib', 'floor-server.mjs'), String(port), ...(oemUrl ? [oemUrl, vin] : [])], { logFile, env });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/floor`, child, logFile);
  return handle(child, url, logFile);
}

/**
 * The webhooks suite's receiver (webhook-receiver.mjs): answers the verification challenge, 204
 * to every other POST, and keeps each event id's first receipt time (GET /stats, /receipts).
 */
export async function startWebhookReceiver({ logFile }) {
  const port = await freePort();
  const child = launch([join(ROOT, 'bench', 'lib', 'webhook-receiver.mjs'), String(port)], { logFile });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/stats`, child, logFile);
  return handle(child, url, logFile);
}

/** `telematics oem-sim`: the simulated automaker cloud (and fleet, when `fleetFile` has telemetry). */
export async function startOemSim({ fleetFile, ingestUrl, logFile, port, latency = '0-0', period = 10, extra = [] }) {
  const cloudPort = port ?? await freePort();
  const child = launch([CLI, 'oem-sim', '--fleet', fleetFile, '--ingest-url', ingestUrl, '--port', String(cloudPort),
    '--latency', latency, '--period', String(period), '--glitch-rate', '0', '--log-level', 'warn', ...extra], { logFile });
  const url = `http://127.0.0.1:${cloudPort}`;
  // The cloud answers 404 on / once it listens; any answer will do.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`oem-sim exited with ${child.exitCode}; see ${logFile}`);
    try { await fetch(url); break; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`oem-sim did not listen; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return handle(child, url, logFile);
}

/**
 * The durable floor of command creations (durable-floor.mjs) on `database` (the service's schema,
 * with the application and `vin` registered), calling the automaker at `oemUrl`.
 */
export async function startDurableFloor({ logFile, oemUrl, vin, database }) {
  const port = await freePort();
  const child = launch([join(ROOT, 'bench', 'lib', 'durable-floor.mjs'), String(port), oemUrl, vin, database], { logFile });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/floor`, child, logFile);
  return handle(child, url, logFile);
}
