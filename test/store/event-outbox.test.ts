/**
 * The event outbox: an event exists exactly when the change it reports committed, and a reader
 * resuming from a position sees every event once, in an order that never goes back, including
 * events committed out of order by concurrent writers (the trap of paging by a serial id).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf, type EventDraft } from '../../src/domain/events.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { expireOverdueCommands } from '../../src/store/commands/expire.js';
import { finishCommand, finishCommandRows } from '../../src/store/commands/finish.js';
import { insertCommands } from '../../src/store/commands/insert.js';
import { appendEvents, appendEventsLast } from '../../src/store/event-appends.js';
import { deleteEventsBefore, readEventsAfter, type StoredEvent } from '../../src/store/events-queries.js';
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

  it.skipIf(kind !== 'postgres')('when a transaction that appended first is still open, then a later writer waits for its commit, and a reader sees both in commit order', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let written!: () => void;
    const wroteFirst = new Promise<void>((resolve) => { written = resolve; });
    const slow = store.db.transaction().execute(async (trx) => {
      await appendEvents(trx, [draft('appended first, still open')], T);
      written();
      await held;
    });
    await wroteFirst;
    let laterDone = false;
    const later = appendEvents(store.db, [draft('appended later')], T).then(() => { laterDone = true; });
    await sleep(150);
    // Were the later one committed now with a higher position, a reader resuming after it would
    // never see the first: it must wait.
    expect(laterDone).toBe(false);
    expect(await readNew()).toEqual([]);
    release();
    await Promise.all([slow, later]);
    const after = await readNew();
    expect(after.map((e) => e.data)).toEqual([{ label: 'appended first, still open' }, { label: 'appended later' }]);
    expect(after[1]!.position).toBeGreaterThan(after[0]!.position);
  });

  it('when a row was written without a position (by an earlier version), then readers number it after those already read', async () => {
    await appendEvents(store.db, [draft('numbered at append')], T);
    const numbered = await readNew();
    await store.db.insertInto('events').values({
      id: eventIdOf('test', 'unnumbered'), type: 'vehicle.online', vin: VIN, company_id: 'acme', application_id: null,
      occurred_at: T, data: JSON.stringify({ label: 'unnumbered' }), created_at: T, position: null,
    }).execute();
    const events = await readNew();
    expect(events.map((e) => e.data)).toEqual([{ label: 'unnumbered' }]);
    expect(events[0]!.position).toBeGreaterThan(numbered[0]!.position);
    await appendEvents(store.db, [draft('after the unnumbered one')], T);
    expect((await readNew())[0]!.position).toBeGreaterThan(events[0]!.position);
  });

  it('when appends are held to the end of a shared transaction, then the events are written there, each with its creation time, and a failure writes none', async () => {
    const countOf = async (db: typeof store.db, label: string) =>
      (await db.selectFrom('events').select('id').where('id', '=', eventIdOf('test', label)).execute()).length;
    await store.db.transaction().execute((trx) => appendEventsLast(trx, async (held) => {
      await appendEvents(held, [draft('held a')], T);
      await appendEvents(held, [draft('held b')], T + 1);
      expect(await countOf(held, 'held a')).toBe(0);
    }));
    const events = await readNew();
    expect(events.map((e) => e.data)).toEqual([{ label: 'held a' }, { label: 'held b' }]);
    const created = await store.db.selectFrom('events').select(['id', 'created_at']).where('id', 'in', events.map((e) => e.id)).orderBy('position').execute();
    expect(created.map((r) => Number(r.created_at))).toEqual([T, T + 1]);
    await expect(store.db.transaction().execute((trx) => appendEventsLast(trx, async (held) => {
      await appendEvents(held, [draft('held, then failed')], T);
      throw new Error('the shared work failed');
    }))).rejects.toThrow('the shared work failed');
    expect(await countOf(store.db, 'held, then failed')).toBe(0);
    await appendEvents(store.db, [draft('not held afterwards')], T);
    expect((await readNew()).map((e) => e.data)).toEqual([{ label: 'not held afterwards' }]);
    // A handle kept past the held work holds nothing more: its appends are written at once.
    await store.db.transaction().execute(async (trx) => {
      let kept!: typeof store.db;
      await appendEventsLast(trx, async (held) => { kept = held; });
      await appendEvents(kept, [draft('on the kept handle')], T);
      expect(await countOf(trx, 'on the kept handle')).toBe(1);
    });
    expect((await readNew()).map((e) => e.data)).toEqual([{ label: 'on the kept handle' }]);
  });

  it.skipIf(kind !== 'postgres')('when a shared transaction appends before another write that waits on a row an appending writer holds, then both commit (no deadlock)', async () => {
    // A: the write batcher's shared transaction, an outcome (with its event) then a write to row R.
    // B: a writer that holds R and then appends. With A's append made at once, A would hold the
    // counter waiting for R while B waits for the counter: PostgreSQL would abort one of them.
    const lockR = (db: typeof store.db) => db.updateTable('event_positions').set((eb) => ({ last_position: eb('last_position', '+', 0) })).where('name', '=', 'pruned').execute();
    let bHoldsR!: () => void;
    const rHeld = new Promise<void>((resolve) => { bHoldsR = resolve; });
    let aAppended!: () => void;
    const appended = new Promise<void>((resolve) => { aAppended = resolve; });
    const a = store.db.transaction().execute((trx) => appendEventsLast(trx, async (held) => {
      await rHeld;
      await appendEvents(held, [draft('A, held')], T);
      aAppended();
      await lockR(held);
    }));
    const b = store.db.transaction().execute(async (trx) => {
      await lockR(trx);
      bHoldsR();
      await appended;
      await sleep(50);
      await appendEvents(trx, [draft('B')], T);
    });
    await Promise.all([a, b]);
    expect((await readNew()).map((e) => e.data)).toEqual([{ label: 'B' }, { label: 'A, held' }]);
  });

  it.skipIf(kind !== 'postgres')('when a session starts, then it reads committed and a transaction left idle is ended by the server', async () => {
    const show = async (name: string) => Object.values((await sql.raw(`show ${name}`).execute(store.db)).rows[0] as object)[0];
    expect(await show('default_transaction_isolation')).toBe('read committed');
    expect(await show('idle_in_transaction_session_timeout')).toBe('1min');
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
