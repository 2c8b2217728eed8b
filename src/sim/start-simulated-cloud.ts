/**
 * The simulated automaker of `serve --sim`, started so that a restarted service finds it as it
 * left it, as it would a real automaker: on the port kept with the database (the status URLs it
 * handed out keep their origin), knowing again the commands it accepted (recalled from the
 * service's commands table by id: those whose status URL it issued). A port taken by someone
 * else meanwhile is logged and replaced: the commands still pending at the old address then end
 * in error, as they would with an automaker that moved.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { findCommand } from '../store/commands-queries.js';
import type { Db } from '../store/connection.js';
import { readSimulationValue, writeSimulationValue } from '../store/simulation-state-queries.js';
import { SimulatedOemCloud, type AcceptedCommand } from './simulated-oem-cloud.js';
import type { SimulatedVehicle } from './simulated-vehicle.js';

/** How long a simulated vehicle takes to answer a command, ms (from the command id). */
const COMMAND_LATENCY_MS: readonly [number, number] = [1500, 6000];
const PORT_NAME = 'cloud_port';

export interface StartedSimulatedCloud {
  readonly cloud: SimulatedOemCloud;
  readonly url: string;
  /** The secret the cloud requires, new at every start (status URLs do not carry it). */
  readonly key: string;
}

export async function startSimulatedCloud(
  db: Db, clock: Clock, vehicle: (vin: string) => SimulatedVehicle | undefined, seed: number, logger: Logger,
): Promise<StartedSimulatedCloud> {
  const key = SimulatedOemCloud.generateKey();
  const cloud: SimulatedOemCloud = new SimulatedOemCloud(vehicle, clock, {
    latencyMs: COMMAND_LATENCY_MS, seed, apiKey: key, logger, recall: (id) => recallAccepted(db, id, cloud.url),
  });
  const kept = keptPort(await readSimulationValue(db, PORT_NAME));
  let url: string | undefined;
  if (kept !== undefined) {
    try {
      url = await cloud.listen(kept);
    } catch (error) {
      logger.warn({ port: kept, err: error }, 'the simulated automaker cannot listen on its kept port: it listens on another, and commands still pending at the old one will end in error');
    }
  }
  url ??= await cloud.listen(0);
  const port = Number(new URL(url).port);
  if (port !== kept) await writeSimulationValue(db, PORT_NAME, String(port), clock.now());
  return { cloud, url, key };
}

function keptPort(value: string | undefined): number | undefined {
  const port = Number(value);
  return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

async function recallAccepted(db: Db, id: string, cloudUrl: string): Promise<AcceptedCommand | undefined> {
  const row = await findCommand(db, id);
  if (!row || row.status_url !== `${cloudUrl}/commands/${id}`) return undefined;
  return { vin: row.vin, command: row.command, acceptedAt: Number(row.created_at) };
}
