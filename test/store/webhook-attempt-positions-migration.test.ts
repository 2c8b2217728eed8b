/**
 * Migration 0014 gives the attempt log each event's outbox position and asks recovery by it: an
 * attempt logged before it still counts as received afterwards, a ping stays without a position.
 */
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { numberCommittedEvents } from '../../src/store/events-queries.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/open-store.js';
import { receivedEventIds } from '../../src/store/webhooks/recovery.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

describe.each(DATABASE_KINDS)('migration 0014 on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('when attempts were logged before it, then their events are received by position afterwards, and a ping has none', async () => {
    const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.capabilities) });
    expect((await migrator.migrateTo('0013-webhook-streams')).error).toBeUndefined();
    const now = Date.UTC(2026, 10, 24);
    const event = (id: string) => ({ id, type: 'vehicle.online' as const, vin: '9BWZZZ377VT100001', companyId: 'acme', applicationId: null, occurredAt: now, data: {} });
    await appendEvents(store.db, [event('e-received'), event('e-failed'), event('e-never')], now);
    await numberCommittedEvents(store);
    const attempt = (id: string, eventId: string, trigger: string, status: number) => ({
      id, endpoint_id: 'ep', event_id: eventId, event_type: 'vehicle.online', trigger, attempted_at: now, duration_ms: 3, status_code: status, error: null,
    });
    await store.db.insertInto('webhook_attempts').values([
      attempt('a1', 'e-received', 'auto', 204), attempt('a2', 'e-failed', 'auto', 500), attempt('a3', 'ping-id', 'test', 200),
    ] as never).execute();

    await migrateToLatest(store);

    const rows = await store.db.selectFrom('webhook_attempts').select(['id', 'event_position']).orderBy('id').execute();
    const positions = await store.db.selectFrom('events').select(['id', 'position']).orderBy('position').execute();
    const positionOf = new Map(positions.map((p) => [p.id, Number(p.position)]));
    expect(rows.map((r) => [r.id, r.event_position === null ? null : Number(r.event_position)])).toEqual([
      ['a1', positionOf.get('e-received')], ['a2', positionOf.get('e-failed')], ['a3', null],
    ]);
    expect(await receivedEventIds(store.db, 'ep', positions)).toEqual(new Set(['e-received']));
    // Another endpoint received none of them.
    expect(await receivedEventIds(store.db, 'other', positions)).toEqual(new Set());
  });
});
