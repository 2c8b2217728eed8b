/**
 * GET /events through the real service: what each application sees (its own commands, its
 * company's vehicles, nothing outside its plan), paging with an opaque cursor, filters, the
 * answers to bad input, 410 once retention dropped what a cursor was behind, and a reader
 * resuming from any cursor while concurrent writers commit out of order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf, type EventDraft } from '../../src/domain/events.js';
import { tripRecord } from '../../src/domain/trip-record.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { deleteEventsBefore } from '../../src/store/events-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const trip = (vin: string, at: number) => tripRecord({
  vin, start_ts: at, end_ts: at + 600_000, duration_s: 600, distance_km: 5.5, avg_speed: 33, max_speed: 61,
  start_odometer: 1000, end_odometer: 1005.5, avg_fuel_consumption: 11.2, start_latitude: -23.5, start_longitude: -46.6,
  end_latitude: -23.6, end_longitude: -46.7,
});

describe.each(DATABASE_KINDS)('GET /events on %s', (kind) => {
  let svc: TestService;
  let apps: { dispatch: string; reports: string; beta: string };
  let appIds: Record<string, string>;
  let label = 0;
  const draft = (fields: Partial<EventDraft> & Pick<EventDraft, 'type' | 'vin' | 'companyId'>): EventDraft => {
    label += 1;
    return { id: eventIdOf('feed-test', label), applicationId: null, occurredAt: T0 + label * 1000, data: { vin: fields.vin, n: label }, ...fields };
  };
  const get = (app: string, query = '') => svc.request('GET', `/events${query}`, { headers: { authorization: `Bearer ${app}` } });
  /** Every page from `after` (or the start) to the end, and the cursor after the last. */
  const readAll = async (app: string, after?: string, limit = 500, extra = '') => {
    const seen: any[] = [];
    let cursor = after;
    for (;;) {
      const res = await get(app, `?limit=${limit}${cursor ? `&after=${cursor}` : ''}${extra}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      if (!res.body.has_more) return { events: seen, cursor: cursor! };
    }
  };

  beforeAll(async () => {
    svc = await startTestService(kind);
    apps = {
      dispatch: await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client),
      reports: await svc.token('alpha-reports', SECRETS.alphaReports.client),
      beta: await svc.token('beta-ops', SECRETS.betaOps.client),
    };
    const rows = await svc.store.db.selectFrom('applications').select(['id', 'client_id']).execute();
    appIds = Object.fromEntries(rows.map((r) => [r.client_id, r.id]));
  });
  afterAll(async () => { await svc?.close(); });

  it('when events of two companies and two applications are written, then each application reads only what D12 lets it see', async () => {
    const start = {
      dispatch: (await readAll(apps.dispatch)).cursor, reports: (await readAll(apps.reports)).cursor, beta: (await readAll(apps.beta)).cursor,
    };
    const dispatchCommand = draft({ type: 'command.succeeded', vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: appIds['alpha-dispatch']! });
    const reportsCommand = draft({ type: 'command.failed', vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: appIds['alpha-reports']! });
    const ignitionFull = draft({ type: 'vehicle.ignition_on', vin: ALPHA_VINS[0], companyId: 'alpha' });
    // othermotors gives vin and speed only: no `event` datapoint, so no ignition event.
    const ignitionNoEvent = draft({ type: 'vehicle.ignition_off', vin: ALPHA_VINS[2], companyId: 'alpha' });
    const tripFull = draft({ type: 'trip.ended', vin: ALPHA_VINS[0], companyId: 'alpha', data: trip(ALPHA_VINS[0], T0) });
    const tripSpeedOnly = draft({ type: 'trip.ended', vin: ALPHA_VINS[2], companyId: 'alpha', data: trip(ALPHA_VINS[2], T0) });
    const offline = draft({ type: 'vehicle.offline', vin: ALPHA_VINS[1], companyId: 'alpha', data: { vin: ALPHA_VINS[1], last_record: null } });
    // beta's plan is vin, date_time and speed.
    const betaTrip = draft({ type: 'trip.ended', vin: BETA_VINS[0], companyId: 'beta', data: trip(BETA_VINS[0], T0) });
    const betaCharging = draft({ type: 'vehicle.charging', vin: BETA_VINS[1], companyId: 'beta' });
    await appendEvents(svc.store.db, [dispatchCommand, reportsCommand, ignitionFull, ignitionNoEvent, tripFull, tripSpeedOnly, offline, betaTrip, betaCharging], T0);

    const ids = (events: any[]) => events.map((e) => e.id);
    const dispatch = (await readAll(apps.dispatch, start.dispatch)).events;
    const reports = (await readAll(apps.reports, start.reports)).events;
    const beta = (await readAll(apps.beta, start.beta)).events;
    expect(ids(dispatch)).toEqual([dispatchCommand.id, ignitionFull.id, tripFull.id, tripSpeedOnly.id, offline.id]);
    expect(ids(reports)).toEqual([reportsCommand.id, ignitionFull.id, tripFull.id, tripSpeedOnly.id, offline.id]);
    expect(ids(beta)).toEqual([betaTrip.id]);

    expect(dispatch[0]).toEqual({ id: dispatchCommand.id, type: 'command.succeeded', timestamp: expect.stringMatching(/^2026-11-20T09:\d\d:\d\d-03:00$/), data: dispatchCommand.data });
    expect(dispatch[2].data).toEqual(tripFull.data);
    const speedOnly = { vin: ALPHA_VINS[2], start_date_time: tripFull.data.start_date_time, end_date_time: tripFull.data.end_date_time, duration: tripFull.data.duration, avg_speed: 33, max_speed: 61 };
    expect(dispatch[3].data).toEqual(speedOnly);
    expect(beta[0].data).toEqual({ ...speedOnly, vin: BETA_VINS[0] });
  });

  it('when events are more than a page, then pages follow each other with no event twice, has_more tells when to ask again, and an empty page still gives a cursor', async () => {
    const { cursor: before } = await readAll(apps.reports);
    const written = Array.from({ length: 230 }, () => draft({ type: 'vehicle.online', vin: ALPHA_VINS[1], companyId: 'alpha' }));
    await appendEvents(svc.store.db, written, T0);
    const first = await get(apps.reports, `?after=${before}&limit=100`);
    expect(first.body.data).toHaveLength(100);
    expect(first.body.has_more).toBe(true);
    const { events, cursor } = await readAll(apps.reports, before, 100);
    expect(events.map((e) => e.id)).toEqual(written.map((e) => e.id));
    const empty = await get(apps.reports, `?after=${cursor}`);
    expect(empty.body).toEqual({ data: [], next_cursor: cursor, has_more: false });
    const late = draft({ type: 'vehicle.offline', vin: ALPHA_VINS[1], companyId: 'alpha' });
    await appendEvents(svc.store.db, [late], T0);
    expect((await get(apps.reports, `?after=${cursor}`)).body.data.map((e: any) => e.id)).toEqual([late.id]);
  });

  it('when a company is quiet while others write, then its cursor still moves on, past what retention later drops', async () => {
    const { cursor } = await readAll(apps.beta);
    await appendEvents(svc.store.db, Array.from({ length: 5 }, () => draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })), T0);
    const page = await get(apps.beta, `?after=${cursor}`);
    expect(page.body.data).toEqual([]);
    expect(page.body.next_cursor).not.toBe(cursor);
  });

  it('when types and vin are given, then only those events come, and the cursor still covers what was skipped', async () => {
    const { cursor } = await readAll(apps.dispatch);
    const wanted = draft({ type: 'vehicle.offline', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [
      draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' }), wanted,
      draft({ type: 'vehicle.offline', vin: ALPHA_VINS[1], companyId: 'alpha' }),
    ], T0);
    const page = await get(apps.dispatch, `?after=${cursor}&types=vehicle.offline,trip.ended&vin=${ALPHA_VINS[0]}`);
    expect(page.body.data.map((e: any) => e.id)).toEqual([wanted.id]);
    expect((await get(apps.dispatch, `?after=${page.body.next_cursor}`)).body.data).toEqual([]);
  });

  it('when the query is malformed, then 400 with the catalogue text, never a 500', async () => {
    const cases: [string, number, string][] = [
      ['?after=nonsense', 400, 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
      ['?after=ev1.', 400, 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
      ['?after=ev1.LTE', 400, 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
      [`?after=ev1.${'A'.repeat(5000)}`, 400, 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
      ['?types=vehicle.exploded', 400, 'Unknown event type: vehicle.exploded.'],
      ['?types=trip.ended,,nope', 400, 'Unknown event type: nope.'],
      ['?limit=0', 400, 'limit must be an integer from 1 to 500.'],
      ['?limit=501', 400, 'limit must be an integer from 1 to 500.'],
      ['?limit=1e2', 400, 'limit must be an integer from 1 to 500.'],
      ['?limit=-1', 400, 'limit must be an integer from 1 to 500.'],
      ['?vin=123', 400, 'vin must be a 17-character VIN.'],
    ];
    for (const [query, status, detail] of cases) {
      const res = await get(apps.dispatch, query);
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status, body: { detail } });
    }
    expect((await svc.request('GET', '/events')).status).toBe(401);
  });

  it('when retention dropped events after a cursor, then that cursor gets 410 and reading without one starts after them', async () => {
    const { cursor: old } = await readAll(apps.dispatch);
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], T0);
    await readAll(apps.dispatch, old); // numbered, so retention records what it drops
    expect(await deleteEventsBefore(svc.store.db, Date.now() + 60_000)).toBeGreaterThan(0);
    const expired = await get(apps.dispatch, `?after=${old}`);
    expect(expired.status).toBe(410);
    expect(expired.body).toEqual({ detail: 'Cursor expired: events after it are no longer kept. Start again without a cursor.' });
    const fresh = await get(apps.dispatch);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data).toEqual([]);
    const kept = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [kept], T0);
    expect((await get(apps.dispatch, `?after=${fresh.body.next_cursor}`)).body.data.map((e: any) => e.id)).toEqual([kept.id]);
  });

  it('when writers commit out of order while a reader pages, then from any cursor it handed out the reader sees every visible event once', async () => {
    const { cursor: start } = await readAll(apps.dispatch);
    const writers = 8;
    const perWriter = 12;
    const visible = new Set<string>();
    let writing = true;
    const pages: { cursor: string; ids: string[] }[] = [];
    const reader = (async () => {
      let cursor = start;
      for (;;) {
        const done = !writing;
        const res = await get(apps.dispatch, `?after=${cursor}&limit=${1 + Math.floor(Math.random() * 7)}`);
        expect(res.status).toBe(200);
        pages.push({ cursor, ids: res.body.data.map((e: any) => e.id) });
        cursor = res.body.next_cursor;
        if (done && !res.body.has_more) return;
        if (!res.body.has_more) await sleep(2);
      }
    })();
    await Promise.all(Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter; i += 1) {
        // A mix of what dispatch sees and what it must not: beta's, reports' commands.
        const choice = (w + i) % 3;
        const event = choice === 0 ? draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })
          : choice === 1 ? draft({ type: 'command.succeeded', vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: appIds['alpha-reports']! })
            : draft({ type: 'vehicle.online', vin: BETA_VINS[0], companyId: 'beta' });
        if (choice === 0) visible.add(event.id);
        await svc.store.db.transaction().execute(async (trx) => {
          await appendEvents(trx, [event], T0);
          await sleep(Math.floor(Math.random() * 5));
        });
      }
    }));
    writing = false;
    await reader;
    const all = pages.flatMap((p) => p.ids);
    expect(all).toHaveLength(visible.size);
    expect(new Set(all)).toEqual(visible);
    // Resuming from any cursor handed out gives exactly what followed it.
    for (let k = 0; k < pages.length; k += Math.max(1, Math.floor(pages.length / 12))) {
      const after = pages.slice(k).flatMap((p) => p.ids);
      expect((await readAll(apps.dispatch, pages[k]!.cursor, 3)).events.map((e) => e.id)).toEqual(after);
    }
  });
});
