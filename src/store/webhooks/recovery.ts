/**
 * What recovery reads and writes (an application's `recover`, the operator's `admin webhook
 * replay`): the events an endpoint's stream has passed since an instant, which of them it has
 * received, and making the deliveries of the others due again.
 */
import type { Selectable } from 'kysely';
import type { Db } from '../connection.js';
import type { EventsTable } from '../schema.js';

/** An outbox event recovery may queue again, with what deciding who may see it needs. */
export type RecoverableEvent = Pick<Selectable<EventsTable>, 'id' | 'position' | 'company_id' | 'application_id' | 'type'>;

/**
 * The company's events created since `since`, of these types (undefined: every type), that the
 * endpoint's stream has already passed, oldest first: what its stream has not reached yet is
 * left to the stream.
 */
export async function eventsPassedByStream(
  db: Db, endpoint: { readonly id: string; readonly companyId: string; readonly types: readonly string[] | undefined }, since: number, limit: number,
): Promise<RecoverableEvent[]> {
  let query = db.selectFrom('events').select(['id', 'position', 'company_id', 'application_id', 'type'])
    .where('company_id', '=', endpoint.companyId).where('created_at', '>=', since).where('position', 'is not', null)
    .where('position', '<=', (eb) => eb.selectFrom('webhook_endpoints').select('stream_position').where('id', '=', endpoint.id));
  if (endpoint.types !== undefined) query = query.where('type', 'in', endpoint.types);
  return query.orderBy('position').limit(limit).execute();
}

/**
 * Which of `events` (ids with their outbox positions) an endpoint has received, for recovery: a
 * 2xx in the attempt log (a first attempt that succeeded leaves no delivery row; asked by
 * position, see migration 0014), or a delivery that succeeded.
 */
export async function receivedEventIds(db: Db, endpointId: string, events: ReadonlyArray<{ readonly id: string; readonly position: number | string | null }>): Promise<Set<string>> {
  const received = new Set<string>();
  for (let i = 0; i < events.length; i += 500) {
    const chunk = events.slice(i, i + 500);
    const idAt = new Map(chunk.flatMap((e) => (e.position === null ? [] : [[Number(e.position), e.id] as const])));
    const attempts = idAt.size === 0 ? [] : await db.selectFrom('webhook_attempts').select('event_position')
      .where('endpoint_id', '=', endpointId).where('event_position', 'in', [...idAt.keys()])
      .where('status_code', '>=', 200).where('status_code', '<=', 299).execute();
    for (const { event_position: position } of attempts) {
      const id = idAt.get(Number(position));
      if (id !== undefined) received.add(id);
    }
    const deliveries = await db.selectFrom('webhook_deliveries').select('event_id')
      .where('endpoint_id', '=', endpointId).where('status', '=', 'succeeded').where('event_id', 'in', chunk.map((e) => e.id)).execute();
    for (const r of deliveries) received.add(r.event_id);
  }
  return received;
}

/**
 * Makes deliveries due again now (recovery): those not received are retried from the first
 * attempt. One under a live lease is being sent right now and is left to its holder.
 */
export async function requeueDeliveries(db: Db, endpointId: string, eventIds: readonly string[], now: number): Promise<void> {
  for (let i = 0; i < eventIds.length; i += 500) {
    await db.updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, updated_at: now })
      .where('endpoint_id', '=', endpointId).where('status', '!=', 'succeeded').where('event_id', 'in', eventIds.slice(i, i + 500))
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])).execute();
  }
}
