/**
 * `serve --sim`: the simulated fleet inside the service process. It backfills the configured
 * history (reporting progress to whoever started it: the CLI draws a bar), then keeps sampling in
 * real time, pushing over HTTP to the service's own ingest endpoint exactly as an automaker would.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Keyring } from '../security/keyring.js';
import type { Db } from '../store/connection.js';
import { FleetSimulator } from './fleet-simulator.js';
import { loadSimulatedFleet } from './load-simulated-fleet.js';
import type { TrackerEndpoints } from '../gateway/simulated-tracker.js';

/** Where the backfill reports how far it is (records pushed of the total), then its summary line. */
export interface BackfillProgress {
  update(done: number, total: number): void;
  finish(summary: string): void;
}

export interface InProcessSimulation {
  readonly simulator: FleetSimulator;
  /** Settles when the backfill is done (or was stopped). */
  readonly backfilled: Promise<void>;
  stop(): Promise<void>;
}

export interface InProcessSimulationSettings {
  readonly ingestUrl: string;
  readonly seed: number;
  readonly periodSeconds: number;
  readonly backfillMs: number;
  readonly glitchRate: number;
  /** The gateway's listeners, for vehicles with a simulated tracker. */
  readonly trackers?: TrackerEndpoints | undefined;
}

export async function startInProcessSimulation(
  db: Db, keyring: Keyring, clock: Clock, settings: InProcessSimulationSettings, logger: Logger, progress?: BackfillProgress,
): Promise<InProcessSimulation> {
  const now = clock.now();
  const vehicles = await loadSimulatedFleet(db, keyring, now, settings.backfillMs, settings.periodSeconds * 1000);
  const simulator = new FleetSimulator(vehicles, {
    ingestUrl: settings.ingestUrl, periodSeconds: settings.periodSeconds, glitchRate: settings.glitchRate, seed: settings.seed, logger,
    trackers: settings.trackers,
  });
  const pending = simulator.pendingRecords(now);
  logger.info({ vehicles: vehicles.length, pending }, 'simulated fleet starting');
  if (pending > 0) progress?.update(0, pending);
  const abort = new AbortController();
  let stopLive: (() => Promise<void>) | undefined;
  const backfilled = simulator.runUntil(now, (done, total) => progress?.update(done, total), abort.signal).then(
    (report) => {
      progress?.finish(`${report.accepted.toLocaleString('en-US')} records stored, ${report.rejected} rejected`);
      // Each period the registry is read again, so a vehicle added or changed on the running
      // service (admin vehicle add|set, admin apply) is simulated within one period.
      if (!abort.signal.aborted) {
        stopLive = simulator.start(clock, async () => {
          const current = await loadSimulatedFleet(db, keyring, clock.now(), 0, settings.periodSeconds * 1000, simulator.vins);
          const { added, removed } = simulator.sync(current);
          if (added.length > 0 || removed.length > 0) logger.info({ added, removed }, 'simulated fleet follows the registry');
        });
      }
    },
    (error: unknown) => logger.error({ err: error }, 'simulated fleet backfill failed; the simulator is off'),
  );
  return {
    simulator,
    backfilled,
    async stop() {
      abort.abort();
      await backfilled;
      await stopLive?.();
      simulator.closeTrackers();
    },
  };
}
