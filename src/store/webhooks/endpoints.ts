/**
 * Webhook endpoints (migration 0012): an application's receivers, their signing secrets (sealed)
 * and their health. Their streams are in streams.ts.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../connection.js';
import type { WebhookEndpointsTable } from '../schema.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

export const insertWebhookEndpoint = (db: Db, row: Insertable<WebhookEndpointsTable>) => db.insertInto('webhook_endpoints').values(row).execute();

export const listWebhookEndpoints = (db: Db, applicationId: string): Promise<WebhookEndpointRow[]> =>
  db.selectFrom('webhook_endpoints').selectAll().where('application_id', '=', applicationId).orderBy('created_at').orderBy('id').execute();

export const listAllWebhookEndpoints = (db: Db): Promise<WebhookEndpointRow[]> =>
  db.selectFrom('webhook_endpoints').selectAll().orderBy('company_id').orderBy('created_at').execute();

export const findWebhookEndpoint = (db: Db, id: string): Promise<WebhookEndpointRow | undefined> =>
  db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();

/** Endpoints by id (those that still exist). */
export async function findWebhookEndpoints(db: Db, ids: readonly string[]): Promise<Map<string, WebhookEndpointRow>> {
  const found = new Map<string, WebhookEndpointRow>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const row of await db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids.slice(i, i + 500)).execute()) found.set(row.id, row);
  }
  return found;
}

export async function countWebhookEndpoints(db: Db, applicationId: string): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number | string>().as('n')).where('application_id', '=', applicationId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Endpoints per status, every application's (the metrics). */
export async function countWebhookEndpointsByStatus(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('webhook_endpoints').select(['status', (eb) => eb.fn.countAll<number | string>().as('n')]).groupBy('status').execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

export const updateWebhookEndpoint = (db: Db, id: string, changes: Updateable<WebhookEndpointsTable>) =>
  db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute();

/** Removes an endpoint; what it had not received is dropped with it. */
export async function deleteWebhookEndpoint(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('webhook_attempts').where('endpoint_id', '=', id).execute();
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

/** Disables an endpoint that is enabled (an operator's disable, or one already made, stands); true when it was. */
export async function disableWebhookEndpoint(db: Db, id: string, reason: string, now: number): Promise<boolean> {
  const result = await db.updateTable('webhook_endpoints').set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', id).where('status', '=', 'enabled').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * A run of attempts' effect on an endpoint's streak, atomically: none when a success came after
 * every failure of the run (the streak ends), else one from `failedFrom`, the first failure after
 * the run's last success — unless the run had no success and a streak is running, which goes on.
 * Answers the streak's start after, undefined when the endpoint is gone.
 */
export async function recordEndpointRun(db: Db, id: string, run: { readonly anySuccess: boolean; readonly failedFrom: number | undefined }, now: number): Promise<number | null | undefined> {
  const row = await db.updateTable('webhook_endpoints')
    .set((eb) => ({
      failing_since: run.failedFrom === undefined ? null : run.anySuccess ? run.failedFrom : eb.fn.coalesce('failing_since', eb.val(run.failedFrom)),
      updated_at: now,
    }))
    .where('id', '=', id).returning('failing_since').executeTakeFirst();
  return row === undefined ? undefined : row.failing_since === null ? null : Number(row.failing_since);
}
