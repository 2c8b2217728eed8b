/**
 * The trip workers' shard leases (migration 0018). One call per pass, in one transaction: the
 * worker says it is alive, keeps the shards it holds, gives back what is over its fair share
 * (shards ÷ live workers, rounded up) and takes free or lapsed shards up to it. A dead worker's
 * shards lapse with its lease and are taken by the others; a new worker gets its share as the
 * others give theirs back at their next pass. Where several writers run at once (PostgreSQL),
 * the shards taken are locked and locked ones skipped, so two workers never take one shard.
 * Leases are times of the workers' own clocks: keep the machines' clocks synchronised (NTP), as
 * for the shared rate limits.
 */
import { sql } from 'kysely';
import type { DialectCapabilities } from './dialect.js';
import type { Db } from './connection.js';

export interface ShardLeaseRequest {
  readonly owner: string;
  readonly now: number;
  readonly leaseMs: number;
}

/** The shards `owner` holds after this pass, in order. */
export async function leaseTripShards(db: Db, capabilities: DialectCapabilities, request: ShardLeaseRequest): Promise<number[]> {
  const { owner, now, leaseMs } = request;
  const until = now + leaseMs;
  // Dead workers' rows go first, on their own and skipping rows another worker holds: deleted in
  // the transaction below, after this worker's own upsert, two workers could each wait for the other.
  const lockDead = capabilities.skipLocked ? sql` for update skip locked` : sql``;
  await sql`delete from trip_workers where owner in (
    select owner from trip_workers where alive_until <= ${now} and owner <> ${owner}${lockDead})`.execute(db);
  return db.transaction().execute(async (trx) => {
    await trx.insertInto('trip_workers').values({ owner, alive_until: until })
      .onConflict((oc) => oc.column('owner').doUpdateSet({ alive_until: until })).execute();
    const counts = await trx.selectFrom('trip_workers').select((eb) => eb.fn.countAll<number | string>().as('n')).where('alive_until', '>', now).executeTakeFirstOrThrow();
    const total = await trx.selectFrom('trip_shards').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    const share = Math.ceil(Number(total.n) / Math.max(1, Number(counts.n)));

    const kept = (await trx.updateTable('trip_shards').set({ lease_until: until }).where('owner', '=', owner).returning('shard').execute())
      .map((r) => Number(r.shard)).sort((a, b) => a - b);
    if (kept.length > share) {
      const extra = kept.splice(share);
      await trx.updateTable('trip_shards').set({ owner: null, lease_until: 0 }).where('owner', '=', owner).where('shard', 'in', extra).execute();
      return kept;
    }
    if (kept.length === share) return kept;
    const lockFree = capabilities.skipLocked ? sql` for update skip locked` : sql``;
    const free = await sql<{ shard: number | string }>`
      select shard from trip_shards where owner is null or lease_until <= ${now} order by shard limit ${share - kept.length}${lockFree}`.execute(trx);
    const taken = free.rows.map((r) => Number(r.shard));
    if (taken.length > 0) await trx.updateTable('trip_shards').set({ owner, lease_until: until }).where('shard', 'in', taken).execute();
    return [...kept, ...taken].sort((a, b) => a - b);
  });
}

/** At a clean stop: the worker's shards are free at once, not after its lease. */
export async function releaseTripShards(db: Db, owner: string): Promise<void> {
  await db.updateTable('trip_shards').set({ owner: null, lease_until: 0 }).where('owner', '=', owner).execute();
  await db.deleteFrom('trip_workers').where('owner', '=', owner).execute();
}
