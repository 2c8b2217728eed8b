/**
 * The event outbox: an event exists exactly when the change it reports committed, and a reader
 * resuming from a position sees every event once, in an order that never goes back, including
 * events committed out of order by concurrent writers (the trap of paging by a serial id).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf, type EventDraft } from '../../src/domain/events.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { expireOverdueCommands, finishCommand, finishCommandRows, insertCommands } from '../../src/store/commands-queries.js';
import { appendEvents, deleteEventsBefore, readEventsAfter, type StoredEvent } from '../../src/store/events-queries.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

const T = Date.UTC(2026, 10, 20, 12);
const VIN = '1HGBH41JXMN109186';

const command = (id: string) => ({
  id, application_id: 'app-1', company_id: 'acme', vin: VIN, oem: 'volta', command: 'diagnostics',
  status: 'Pending', detail: '{}', created_at: T, updated_at: T, deadline_at: T + 120_000, code_attempts: 0, poll_attempts: 0,
});

const draft = (label: string): EventDraft => ({
  id: eventIdOf('test', label), type: 'vehicle.online', vin: VIN, companyId: 'acme', applicationId: null, occurredAt: T, data: { label },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DATABASE_KINDS)('the event outbox on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  let readFrom = 0;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 12 });
    await migrateToLatest(store);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** Everything after what this file has read so far. */
  const readNew = async (): Promise<StoredEvent[]> => {
    const events = await readEventsAfter(store, readFrom, 10_000);
    if (events.length > 0) readFrom = events.at(-1)!.position;
    return events;
  };

  it('when a command finishes, then one event carries what GET /vehicle-command/{id} answers, and finishing again writes none', async () => {
    const id = randomUUID();
    await insertCommands(store.db, [command(id)]);
    expect(await finishCommand(store.db, id, 'Success', { odometer: 12.5 }, T + 5000)).toBe(true);
    expect(await finishCommand(store.db, id, 'Error', 'Command timeout.', T + 6000)).toBe(false);
    const events = await readNew();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'command.succeeded', vin: VIN, companyId: 'acme', applicationId: 'app-1', occurredAt: T + 5000,
      data: { id, vin: VIN, command: 'diagnostics', status: 'Success', detail: { odometer: 12.5 }, updated: '2026-11-20 09:00:05' },
    });
  });

  it('when outcomes are written in one statement for several commands, or by the deadline, then each gets its one event', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    await insertCommands(store.db, ids.map(command));
    expect(await finishCommandRows(store.db, [
      { id: ids[0]!, status: 'Success', detail: {}, now: T + 1000 },
      { id: ids[1]!, status: 'Error', detail: 'Commands blocked.', now: T + 1000 },
    ])).toEqual([true, true]);
    expect(await expireOverdueCommands(store.db, T + 200_000, 'Command timeout.', 5000)).toBe(1);
    const events = await readNew();
    expect(events.map((e) => [e.type, (e.data as { id: string }).id])).toEqual([
      ['command.succeeded', ids[0]], ['command.failed', ids[1]], ['command.failed', ids[2]],
    ]);
    expect((events[2]!.data as { detail: string }).detail).toBe('Command timeout.');
  });

  it('when the transaction fails after the outcome was written, then neither the outcome nor its event exists', async () => {
    const id = randomUUID();
    await insertCommands(store.db, [command(id)]);
    await expect(store.db.transaction().execute(async (trx) => {
      expect(await finishCommand(trx, id, 'Success', {}, T + 1000)).toBe(true);
      throw new Error('after the change, before the commit');
    })).rejects.toThrow('before the commit');
    expect((await store.db.selectFrom('commands').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('Pending');
    expect(await readNew()).toEqual([]);
    // And the outcome written for real afterwards makes its event.
    expect(await finishCommand(store.db, id, 'Success', {}, T + 2000)).toBe(true);
    expect((await readNew()).map((e) => e.type)).toEqual(['command.succeeded']);
  });

  it('when the same fact is appended twice, then there is one event', async () => {
    await appendEvents(store.db, [draft('twice')], T);
    await appendEvents(store.db, [draft('twice')], T);
    expect((await readNew()).map((e) => e.data)).toEqual([{ label: 'twice' }]);
  });

  it.skipIf(kind !== 'postgres')('when a transaction that wrote first commits after one that wrote later, then a reader resuming from its position still sees it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let written!: () => void;
    const wroteFirst = new Promise<void>((resolve) => { written = resolve; });
    const slow = store.db.transaction().execute(async (trx) => {
      await appendEvents(trx, [draft('written first, committed last')], T);
      written();
      await held;
    });
    await wroteFirst;
    await appendEvents(store.db, [draft('written last, committed first')], T);
    const before = await readNew();
    expect(before.map((e) => e.data)).toEqual([{ label: 'written last, committed first' }]);
    release();
    await slow;
    const after = await readNew();
    expect(after.map((e) => e.data)).toEqual([{ label: 'written first, committed last' }]);
    expect(after[0]!.position).toBeGreaterThan(before[0]!.position);
  });

  it('when many writers commit in random order while a reader keeps resuming, then the reader sees every event exactly once, positions only growing', async () => {
    const writers = 10;
    const perWriter = 15;
    let writing = true;
    const seen: StoredEvent[] = [];
    const reader = (async () => {
      for (;;) {
        const done = !writing;
        seen.push(...(await readNew()));
        if (done) return;
        await sleep(3);
      }
    })();
    await Promise.all(Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter; i += 1) {
        await store.db.transaction().execute(async (trx) => {
          await appendEvents(trx, [draft(`w${w}-e${i}`)], T);
          await sleep(Math.floor(Math.random() * 6));
        });
      }
    }));
    writing = false;
    await reader;
    const labels = seen.map((e) => (e.data as { label: string }).label);
    expect(labels).toHaveLength(writers * perWriter);
    expect(new Set(labels).size).toBe(writers * perWriter);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]!.position).toBeGreaterThan(seen[i - 1]!.position);
    // Each writer's own events in the order it committed them.
    for (let w = 0; w < writers; w += 1) {
      const mine = labels.filter((l) => l.startsWith(`w${w}-`));
      expect(mine).toEqual(Array.from({ length: perWriter }, (_, i) => `w${w}-e${i}`));
    }
  });

  it('when retention has dropped every event, then new events still get positions after the old ones', async () => {
    const highest = readFrom;
    expect(await deleteEventsBefore(store.db, Date.now() + 60_000)).toBeGreaterThan(0);
    expect(await readEventsAfter(store, 0, 10)).toEqual([]);
    await appendEvents(store.db, [draft('after retention')], T);
    const events = await readNew();
    expect(events.map((e) => e.data)).toEqual([{ label: 'after retention' }]);
    expect(events[0]!.position).toBe(highest + 1);
  });
});
