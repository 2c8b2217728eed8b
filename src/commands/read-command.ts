import { errors, ServiceError } from '../domain/errors.js';
import { isFinalStatus } from '../domain/command-status.js';
import { commandStatusBody } from '../domain/events.js';
import type { Principal } from '../auth/authenticate-bearer.js';
import type { Db } from '../store/connection.js';
import { findCommand } from '../store/commands/read.js';
import type { CommandResource, FinishedCommands } from './finished-commands.js';

/** A command id as this service issues them (a UUID, any case). */
export const COMMAND_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /vehicle-command/{id}: readable only by the application that created it; an ended one's answer kept in `finished`. */
export async function readCommand(db: Db, finished: FinishedCommands, principal: Principal, id: string): Promise<CommandResource> {
  if (!COMMAND_ID.test(id)) throw new ServiceError(errors.commandNotFound);
  const key = id.toLowerCase();
  let found = finished.get(key);
  if (found === undefined) {
    const row = await findCommand(db, key);
    if (!row) throw new ServiceError(errors.commandNotFound);
    found = { applicationId: row.application_id, resource: commandStatusBody(row) };
    if (isFinalStatus(row.status)) finished.remember(key, found);
  }
  if (found.applicationId !== principal.applicationId) throw new ServiceError(errors.accessDenied);
  return found.resource;
}
