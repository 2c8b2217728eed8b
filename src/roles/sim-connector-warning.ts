/**
 * A `sim` automaker is reached only through the simulated cloud that `--sim` starts in this
 * process. Without it that automaker's vehicles send nothing and every command to them answers
 * 502, which looks like a dead fleet: say so once at start, naming the automakers and the flag.
 */
import type { Logger } from 'pino';
import type { ServiceConfig } from '../config/settings.js';
import type { Db } from '../store/connection.js';
import { listOems } from '../store/registry-queries.js';

export async function warnOfSimAutomakersWithoutSimulation(config: ServiceConfig, db: Db, logger: Pick<Logger, 'warn'>): Promise<void> {
  // A gateway-only process never reaches an automaker; with --sim the cloud serves them.
  if (config.sim || !(config.role.api || config.role.workers)) return;
  const automakers = (await listOems(db)).filter((o) => o.connector === 'sim').map((o) => o.name);
  if (automakers.length === 0) return;
  const one = automakers.length === 1;
  logger.warn({ automakers }, `${one ? 'automaker' : 'automakers'} ${automakers.join(', ')} ${one ? 'uses' : 'use'} the sim connector but the simulation is off: `
    + `${one ? 'its' : 'their'} vehicles send nothing and ${one ? 'its' : 'their'} commands answer 502; start with --sim (TELEMATICS_SIM=true) to simulate ${one ? 'it' : 'them'}`);
}
