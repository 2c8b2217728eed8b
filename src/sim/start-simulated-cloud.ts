/**
 * The simulated automaker of `serve --sim`, started so that a restarted service finds it as it
 * left it, as it would a real automaker: on the port kept with the database (the status URLs it
 * handed out keep their origin), knowing again the commands it accepted (recalled from the
 * service's commands table by id: those whose status URL it issued). A port taken by someone
 * else meanwhile is logged and replaced: the commands still pending at the old address then end
 * in error, as they would with an automaker that moved.
 */
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { findCommand } from '../store/commands/read.js';
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
  url ??= await listenOutsideEphemeralPorts(cloud);
  const port = Number(new URL(url).port);
  if (port !== kept) await writeSimulationValue(db, PORT_NAME, String(port), clock.now());
  return { cloud, url, key };
}

/**
 * Ports tried first for a new cloud: below Linux's default range for outgoing connections
 * (32768–60999), so after a restart no connection the service has opened (its simulated fleet
 * pushing to its own API, the simulated trackers) can be holding the kept port.
 */
const FIRST_PORTS: readonly [number, number] = [20_000, 32_767];
const PORT_TRIES = 20;

async function listenOutsideEphemeralPorts(cloud: SimulatedOemCloud): Promise<string> {
  const [low, high] = FIRST_PORTS;
  for (let i = 0; i < PORT_TRIES; i += 1) {
    try {
      return await cloud.listen(low + randomInt(high - low + 1));
    } catch {
      // Taken: another one.
    }
  }
  return cloud.listen(0);
}

function keptPort(value: string | undefined): number | undefined {
  const port = Number(value);
  return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

async function recallAccepted(db: Db, id: string, cloudUrl: string): Promise<AcceptedCommand | undefined> {
  const row = await findCommand(db, id);
  // Only a command still waiting for this cloud's answer: a finished one is not run again.
  if (!row || row.status !== 'Pending' || row.status_url !== `${cloudUrl}/commands/${id}`) return undefined;
  // A confirmed command (ignition) was sent when its code was used, not when it was created.
  return { vin: row.vin, command: row.command, acceptedAt: Number(row.code_used_at ?? row.created_at) };
}
