import type { Db } from '../connection.js';

/** Retention: finished deliveries and attempts older than `cutoff`. */
export async function deleteWebhookHistoryBefore(db: Db, cutoff: number): Promise<number> {
  const deliveries = await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('updated_at', '<', cutoff).executeTakeFirst();
  const attempts = await db.deleteFrom('webhook_attempts').where('attempted_at', '<', cutoff).executeTakeFirst();
  return Number(deliveries.numDeletedRows) + Number(attempts.numDeletedRows);
}
