import { sql } from 'kysely';
import type { Db } from './connection.js';

/** The cheapest statement that proves the database answers (readiness probes); rejects when it does not. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1 as ok`.execute(db);
}
