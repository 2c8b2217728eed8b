/**
 * `--sim`: the simulated fleet, pushing to this process's API (and its trackers to this process's
 * gateway), and the simulated automaker cloud this process's command worker polls.
 */
import { trackerEndpointsOf, type RunningGateway } from '../gateway/start-gateway.js';
import { startInProcessSimulation, type BackfillProgress, type InProcessSimulation } from '../sim/run-in-process.js';
import { startSimulatedCloud } from '../sim/start-simulated-cloud.js';
import type { KeyedParts } from './service-parts.js';

export interface RunningSimulation {
  readonly simulation: InProcessSimulation;
  close(): Promise<void>;
}

export async function startSimulation(
  parts: KeyedParts, apiUrl: string, gateway: RunningGateway | undefined, progress: BackfillProgress | undefined,
): Promise<RunningSimulation> {
  const { config, store, keyring, clock, logger, connectors } = parts;
  const simulation = await startInProcessSimulation(store.db, keyring, clock, {
    ingestUrl: apiUrl, seed: config.simSeed, periodSeconds: config.simPeriod, backfillMs: config.simBackfill, glitchRate: config.simGlitchRate,
    trackers: gateway && trackerEndpointsOf(gateway),
  }, logger, progress);
  try {
    // Where the last start left it (a restart keeps its commands going), with a new secret only
    // this process holds: it listens on a real port that any local process could reach.
    const { simulator } = simulation;
    const started = await startSimulatedCloud(store.db, clock, (vin) => simulator.vehicle(vin), config.simSeed, logger);
    connectors.useSimulatedCloud(started.url, started.key);
    logger.info({ url: started.url }, 'simulated automaker cloud listening');
    return {
      simulation,
      close: async () => {
        await simulation.stop();
        await started.cloud.close();
      },
    };
  } catch (error) {
    await simulation.stop();
    throw error;
  }
}
