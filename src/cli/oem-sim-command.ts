import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { latencyRangeOf, loadOemSimConfig, OEM_SIM_SETTINGS } from '../config/oem-sim-settings.js';
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
import { addSettingOptions, settingFlagsOf } from './setting-options.js';
import { SimulatedOemCloud } from '../sim/simulated-oem-cloud.js';

interface OemSimOptions {
  fleet: string;
  ingestUrl: string;
  /** Each tracker protocol's option (`--teltonika`, `--osmand-url`), by its attribute name. */
  [trackerOption: string]: unknown;
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
    .requiredOption('--fleet <file>', 'fleet file: vehicles of OEMs with the sim connector are simulated')
    .requiredOption('--ingest-url <url>', 'base URL of the service, e.g. http://127.0.0.1:8080');
  addSettingOptions(command, OEM_SIM_SETTINGS);
  for (const { simulated } of TRACKER_PROTOCOLS) command.option(simulated.option.flags, simulated.option.description);
  command.action(async (opts: OemSimOptions) => {
    const config = loadOemSimConfig(settingFlagsOf(command, OEM_SIM_SETTINGS));
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
    const { seed, period: periodSeconds, glitchRate, backfill: backfillMs, apiKey } = config;
    const now = systemClock.now();
    let vehicles;
    try {
      vehicles = fleetFileVehicles(validation.fleet, now - backfillMs, config.ingestKey);
    } catch (error) {
      if (error instanceof MissingIngestKey) throw new UsageError(error.message);
      throw error;
    }
    if (vehicles.length === 0) throw new UsageError(`${opts.fleet} has no vehicle of an OEM with the sim connector`);
    const logger = createLogger(config.logLevel);
    const simulator = new FleetSimulator(vehicles, { ingestUrl: opts.ingestUrl, periodSeconds, glitchRate, seed, logger, trackers: trackerEndpoints(opts) });
    const faults = {
      initiateErrorRate: config.faultInitiateErrorRate, missingStatusUrlRate: config.faultMissingStatusUrlRate,
      statusDelayMs: config.faultStatusDelay, initiateDelayMs: config.faultInitiateDelay, hangStatus: config.faultHangStatus,
    };
    // Keyless unless a key is given: the service reaches this cloud as an `http` OEM, and OEM rows
    // hold no key to send. Without one, anyone who can reach the port commands the simulated
    // vehicles, hence loopback by default and a warning otherwise.
    const cloud = new SimulatedOemCloud((vin) => simulator.vehicle(vin), systemClock, { latencyMs: latencyRangeOf(config), seed, faults, apiKey: apiKey ?? null });
    const cloudUrl = await cloud.listen(config.port, config.host);
    logger.info({ url: cloudUrl, key: apiKey !== undefined }, 'simulated automaker cloud listening');
    if (apiKey === undefined && !isLoopbackHost(config.host)) {
      logger.warn({ host: config.host }, 'the simulated automaker cloud has no --api-key and listens beyond loopback: anyone who reaches it can command its vehicles');
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
