/** The simulated automaker's named values (migration 0019). */
import type { Db } from './connection.js';

export async function readSimulationValue(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('simulation_state').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

export async function writeSimulationValue(db: Db, name: string, value: string, now: number): Promise<void> {
  await db.insertInto('simulation_state').values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
    .execute();
}
