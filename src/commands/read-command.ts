import { errors, ServiceError } from '../domain/errors.js';
import { formatSpacedLocal } from '../domain/time.js';
import type { Principal } from '../auth/authenticate-bearer.js';
import type { Db } from '../store/connection.js';
import { findCommand } from '../store/commands-queries.js';

/** A command id as this service issues them (a UUID, any case). */
export const COMMAND_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /vehicle-command/{id}: readable only by the application that created it. */
export async function readCommand(db: Db, principal: Principal, id: string) {
  const row = COMMAND_ID.test(id) ? await findCommand(db, id.toLowerCase()) : undefined;
  if (!row) throw new ServiceError(errors.commandNotFound);
  if (row.application_id !== principal.applicationId) throw new ServiceError(errors.accessDenied);
  return {
    id: row.id, vin: row.vin, command: row.command, status: row.status,
    detail: JSON.parse(row.detail) as unknown, updated: formatSpacedLocal(row.updated_at),
  };
}
