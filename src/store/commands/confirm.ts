/** The two-step commands' confirmation codes (D5): looked up, counted when wrong, used once. */
import type { Db } from '../connection.js';
import type { CommandRow } from './read.js';

/** An application's confirmations for (vin, command) whose codes may still be presented or recognised. */
export function listConfirmations(db: Db, applicationId: string, vin: string, command: string, since: number): Promise<CommandRow[]> {
  return db.selectFrom('commands').selectAll()
    .where('application_id', '=', applicationId).where('vin', '=', vin).where('command', '=', command)
    .where('code_hash', 'is not', null).where('created_at', '>=', since).execute();
}

/** A wrong code counts against every outstanding confirmation of (application, vin, command). */
export async function countWrongCode(db: Db, applicationId: string, vin: string, command: string): Promise<void> {
  await db.updateTable('commands').set((eb) => ({ code_attempts: eb('code_attempts', '+', 1) }))
    .where('application_id', '=', applicationId).where('vin', '=', vin).where('command', '=', command)
    .where('code_hash', 'is not', null).where('status', '=', 'Confirmation').where('code_used_at', 'is', null).execute();
}

/** Step 2 of D5: the one caller whose update lands moves the record to Pending. */
export async function useConfirmation(db: Db, id: string, now: number, maxAttempts: number, deadline: number): Promise<boolean> {
  const result = await db.updateTable('commands').set({ status: 'Pending', code_used_at: now, deadline_at: deadline })
    .where('id', '=', id).where('status', '=', 'Confirmation').where('code_used_at', 'is', null)
    .where('code_expires_at', '>=', now).where('code_attempts', '<', maxAttempts)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
