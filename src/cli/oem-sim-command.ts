import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parseDuration } from '../config/durations.js';
import { describeProblems, validateFleetFile } from '../domain/fleet-file.js';
import { systemClock } from '../domain/clock.js';
import { isLoopbackHost } from '../domain/dial-policy.js';
import type { DeviceProtocol } from '../domain/trackers.js';
import type { TrackerEndpoints } from '../gateway/simulated-tracker.js';
import { TRACKER_PROTOCOLS } from '../gateway/tracker-protocols.js';
import { createLogger } from '../logger.js';
import { FleetSimulator } from '../sim/fleet-simulator.js';
import { fleetFileVehicles, MissingIngestKey } from '../sim/fleet-file-vehicles.js';
import { UsageError } from './output.js';
import { progressBar } from './progress-bar.js';
import { SimulatedOemCloud } from '../sim/simulated-oem-cloud.js';

interface OemSimOptions {
  faultInitiateErrorRate: string;
  faultMissingStatusUrlRate: string;
  faultStatusDelay: string;
  faultInitiateDelay: string;
  faultHangStatus?: boolean;
  port: string;
  host: string;
  latency: string;
  fleet: string;
  ingestUrl: string;
  seed: string;
  period: string;
  backfill: string;
  glitchRate: string;
  ingestKey?: string;
  apiKey?: string;
  logLevel: string;
  /** Each tracker protocol's option (`--teltonika`, `--osmand-url`), by its attribute name. */
  [trackerOption: string]: unknown;
}

function number(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new UsageError(`${flag} must be a number from ${min} to ${max}`);
  return n;
}

/** Each tracker protocol's option (`--teltonika host:port`, `--osmand-url`), checked. */
function trackerEndpoints(opts: OemSimOptions): TrackerEndpoints {
  const endpoints: { [P in DeviceProtocol]?: string } = {};
  for (const { protocol, simulated: { option } } of TRACKER_PROTOCOLS) {
    const value = opts[new Option(option.flags).attributeName()];
    if (typeof value !== 'string') continue;
    const problem = option.problem(value);
    if (problem) throw new UsageError(problem);
    endpoints[protocol] = value;
  }
  return endpoints;
}

export function registerOemSim(program: Command): void {
  const command = program.command('oem-sim')
    .description('run the simulated automaker cloud and fleet as their own process: the cloud answers commands, the fleet pushes telemetry to a service\'s ingest endpoint')
    .option('--port <port>', 'port of the simulated automaker cloud (register its URL as the OEM\'s base_url with the http connector)', '8090')
    .option('--host <host>', 'address of the simulated automaker cloud', '127.0.0.1')
    .option('--latency <ms>', 'vehicle answer latency range, e.g. 1500-6000', '1500-6000')
    .requiredOption('--fleet <file>', 'fleet file: vehicles of OEMs with the sim connector are simulated')
    .requiredOption('--ingest-url <url>', 'base URL of the service, e.g. http://127.0.0.1:8080')
    .option('--seed <n>', 'seed: the same seed gives the same routes and values', '1')
    .option('--period <seconds>', 'sampling period', '10')
    .option('--backfill <duration>', 'history to generate first, e.g. 2d, 6h, 0', '0')
    .option('--glitch-rate <share>', 'share of samples with one faulty value', '0.002')
    .option('--ingest-key <key>', 'ingest key for OEMs whose key is not in the file (env TELEMATICS_INGEST_KEY)')
    .option('--api-key <key>', 'secret the cloud requires as Authorization: Bearer on every request, at least 32 characters (env TELEMATICS_OEM_SIM_KEY, which keeps it out of ps); none by default, so keep the cloud on loopback');
  for (const { simulated } of TRACKER_PROTOCOLS) command.option(simulated.option.flags, simulated.option.description);
  command
    .option('--fault-initiate-error-rate <share>', 'share of command initiations the cloud answers with 500', '0')
    .option('--fault-missing-status-url-rate <share>', 'share of initiations answered without a status URL', '0')
    .option('--fault-status-delay <ms>', 'delay added to every status call', '0')
    .option('--fault-initiate-delay <ms>', 'delay added to every command initiation', '0')
    .option('--fault-hang-status', 'status calls never answer')
    .option('--log-level <level>', 'log level', 'info')
    .action(async (opts: OemSimOptions) => {
      let text: string;
      try {
        text = readFileSync(opts.fleet, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read ${opts.fleet}: ${(error as NodeJS.ErrnoException).code}`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new UsageError(`${opts.fleet} is not valid JSON`);
      }
      const validation = validateFleetFile(json);
      if (!validation.ok) throw new UsageError(`${opts.fleet}: ${describeProblems(validation.problems).split('\n').join('; ')}`);
      if (!/^https?:\/\/\S+$/.test(opts.ingestUrl)) throw new UsageError('--ingest-url must be an http:// or https:// URL');
      const backfillMs = parseDuration(opts.backfill);
      if (backfillMs === undefined || backfillMs > 7 * 86_400_000) throw new UsageError('--backfill must be a duration such as 2d, 6h, 90m or 0 (at most 7d)');
      const seed = number(opts.seed, '--seed', 0, 2_147_483_647);
      const periodSeconds = number(opts.period, '--period', 1, 3600);
      const glitchRate = number(opts.glitchRate, '--glitch-rate', 0, 1);

      const port = number(opts.port, '--port', 0, 65535);
      const apiKey = opts.apiKey ?? (process.env.TELEMATICS_OEM_SIM_KEY || undefined);
      if (apiKey !== undefined && apiKey.length < 32) throw new UsageError('--api-key (TELEMATICS_OEM_SIM_KEY) must be at least 32 characters');
      const latency = /^(\d+)-(\d+)$/.exec(opts.latency);
      if (!latency || Number(latency[1]) > Number(latency[2])) throw new UsageError('--latency must be MIN-MAX milliseconds, e.g. 1500-6000');
      const now = systemClock.now();
      let vehicles;
      try {
        vehicles = fleetFileVehicles(validation.fleet, now - backfillMs, opts.ingestKey ?? (process.env.TELEMATICS_INGEST_KEY || undefined));
      } catch (error) {
        if (error instanceof MissingIngestKey) throw new UsageError(error.message);
        throw error;
      }
      if (vehicles.length === 0) throw new UsageError(`${opts.fleet} has no vehicle of an OEM with the sim connector`);
      const logger = createLogger(opts.logLevel as 'info');
      const simulator = new FleetSimulator(vehicles, { ingestUrl: opts.ingestUrl, periodSeconds, glitchRate, seed, logger, trackers: trackerEndpoints(opts) });
      const faults = {
        initiateErrorRate: number(opts.faultInitiateErrorRate, '--fault-initiate-error-rate', 0, 1),
        missingStatusUrlRate: number(opts.faultMissingStatusUrlRate, '--fault-missing-status-url-rate', 0, 1),
        statusDelayMs: number(opts.faultStatusDelay, '--fault-status-delay', 0, 600_000),
        initiateDelayMs: number(opts.faultInitiateDelay, '--fault-initiate-delay', 0, 600_000),
        hangStatus: opts.faultHangStatus === true,
      };
      // Keyless unless a key is given: the service reaches this cloud as an `http` OEM, and OEM rows
      // hold no key to send. Without one, anyone who can reach the port commands the simulated
      // vehicles, hence loopback by default and a warning otherwise.
      const cloud = new SimulatedOemCloud((vin) => simulator.vehicle(vin), systemClock, { latencyMs: [Number(latency[1]), Number(latency[2])], seed, faults, apiKey: apiKey ?? null });
      const cloudUrl = await cloud.listen(port, opts.host);
      logger.info({ url: cloudUrl, key: apiKey !== undefined }, 'simulated automaker cloud listening');
      if (apiKey === undefined && !isLoopbackHost(opts.host)) {
        logger.warn({ host: opts.host }, 'the simulated automaker cloud has no --api-key and listens beyond loopback: anyone who reaches it can command its vehicles');
      }
      process.stderr.write(`simulated automaker cloud: ${cloudUrl}\n`);
      const progress = progressBar('simulated fleet backfill');
      const report = await simulator.runUntil(now, (done, total) => progress.update(done, total));
      progress.finish(`${report.accepted.toLocaleString('en-US')} records stored, ${report.rejected} rejected`);
      logger.info({ vehicles: vehicles.length, periodSeconds }, 'simulated fleet live');
      const stop = simulator.start(systemClock);
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await stop();
      simulator.closeTrackers();
      await cloud.close();
    });
}
