/**
 * A command's exchange with a tracker (migration 0010). Each transition is one guarded
 * statement: a row is sent at most once (`sent_at` is set by one gateway, before the bytes leave),
 * refused only while unsent (or withdrawn by the gateway that claimed it, before any byte left),
 * and answered only once sent.
 */
import { sql, type Insertable, type Selectable, type SqlBool } from 'kysely';
import type { Db } from './connection.js';
import type { DeviceCommandsTable } from './schema.js';
import { sameValueUnindexed } from './not-from-partial-index.js';

export type DeviceCommandRow = Selectable<DeviceCommandsTable>;

/**
 * A command's exchange row; a second insert for the same command (an initiation repeated after a
 * crash, src/domain/initiation.ts) leaves the first as it is: the tracker is sent it once.
 */
export async function insertDeviceCommand(db: Db, row: Insertable<DeviceCommandsTable>): Promise<void> {
  await db.insertInto('device_commands').values(row).onConflict((oc) => oc.column('command_id').doNothing()).execute();
}

export function findDeviceCommand(db: Db, commandId: string): Promise<DeviceCommandRow | undefined> {
  return db.selectFrom('device_commands').selectAll().where('command_id', '=', commandId).executeTakeFirst();
}

export type UnsentDeviceCommand = DeviceCommandRow & { readonly command_deadline: number };

/**
 * Commands still to send, oldest first: unsent, not refused, and still Pending with at least
 * `marginMs` before the command's own deadline (a relay switched after the API said
 * `Command timeout.` would be a lie). `command_deadline` is that deadline.
 */
export async function listUnsentDeviceCommands(db: Db, now: number, marginMs: number, limit: number): Promise<UnsentDeviceCommand[]> {
  const rows = await db.selectFrom('device_commands as d').innerJoin('commands as c', 'c.id', 'd.command_id')
    .selectAll('d').select('c.deadline_at as command_deadline')
    .where('d.sent_at', 'is', null).where('d.refusal', 'is', null).where('d.deadline_at', '>', now)
    .where('c.status', '=', 'Pending').where('c.deadline_at', '>', now + marginMs)
    .orderBy('d.created_at').limit(limit).execute();
  return rows.map((r) => ({ ...r, command_deadline: Number(r.command_deadline) }));
}

/**
 * Still unsent and not refused, checked so the key answers: the plain condition is the predicate
 * of the partial index `device_commands_unsent`, through which PostgreSQL may read every unsent
 * command to find one (not-from-partial-index.ts).
 */
const stillUnsent = sql<SqlBool>`${sameValueUnindexed('sent_at', 'number')} is null and ${sameValueUnindexed('refusal', 'text')} is null`;

/** Marks the command sent by `gateway`; true for the one caller that may write it to the tracker. */
export async function claimDeviceCommand(db: Db, commandId: string, gateway: string, now: number): Promise<boolean> {
  const result = await db.updateTable('device_commands').set({ sent_at: now, sent_by: gateway })
    .where('command_id', '=', commandId).where(stillUnsent).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The command will never be sent, for `reason` (a command error reason). */
export async function refuseDeviceCommand(db: Db, commandId: string, reason: string): Promise<void> {
  await db.updateTable('device_commands').set({ refusal: reason })
    .where('command_id', '=', commandId).where(stillUnsent).execute();
}

/**
 * A command `gateway` claimed but did not write after all (the ignition interlock said no at the
 * moment of writing): it will never be sent, for `reason`. `sent_at` stays: that gateway held it.
 */
export async function withdrawClaimedDeviceCommand(db: Db, commandId: string, gateway: string, reason: string): Promise<void> {
  await db.updateTable('device_commands').set({ refusal: reason })
    .where('command_id', '=', commandId).where('sent_by', '=', gateway).where('answered_at', 'is', null).where('refusal', 'is', null).execute();
}

export async function recordDeviceAnswer(db: Db, commandId: string, answer: string, now: number): Promise<void> {
  await db.updateTable('device_commands').set({ answer, answered_at: now })
    .where('command_id', '=', commandId).where('sent_at', 'is not', null).where('answered_at', 'is', null).execute();
}
