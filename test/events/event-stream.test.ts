/**
 * GET /events/stream through the real service and a real HTTP client reading the stream: events
 * as they commit with the feed's visibility, resumption after Last-Event-ID, keep-alives, the
 * cap per application, the end after the longest duration, and bad input answered before any
 * stream opens.
 */
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf, type EventDraft } from '../../src/domain/events.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { deleteEventsBefore } from '../../src/store/events-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { openSse, type SseStream } from '../support/sse-client.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { until } from '../support/until.js';

describe.each(DATABASE_KINDS)('GET /events/stream on %s', (kind) => {
  let svc: TestService;
  let dispatch: Record<string, string>;
  let reports: Record<string, string>;
  let reportsId: string;
  let label = 0;
  const streams: SseStream[] = [];
  const draft = (fields: Partial<EventDraft> & Pick<EventDraft, 'type' | 'vin' | 'companyId'>): EventDraft => {
    label += 1;
    return { id: eventIdOf('stream-test', label), applicationId: null, occurredAt: T0 + label * 1000, data: { vin: fields.vin, n: label }, ...fields };
  };
  const open = async (headers: Record<string, string>, query = '') => {
    const stream = await openSse(`${svc.url}/events/stream${query}`, headers);
    streams.push(stream);
    return stream;
  };
  const ids = (frames: { data?: string }[]) => frames.map((f) => JSON.parse(f.data!).id);

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { eventStreams: { perApplication: 2, pollMs: 20, keepAliveMs: 150, maxDurationMs: 60_000 } } });
    dispatch = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    reports = { authorization: `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}` };
    reportsId = (await svc.store.db.selectFrom('applications').select('id').where('client_id', '=', 'alpha-reports').executeTakeFirstOrThrow()).id;
  });
  // Each test starts with no stream open: the cap counts what the server has seen closed.
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await new Promise((r) => setTimeout(r, 100));
  });
  afterAll(async () => {
    // One stream left open on purpose: closing the service must end it, not wait for it.
    await open(reports);
    await svc?.close();
  });

  it('when events commit while a stream is open, then it gets those the application may see, in order, each with a cursor id', async () => {
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], T0);
    const stream = await open(dispatch);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(stream.headers.get('content-encoding')).toBeNull();
    const visible = [draft({ type: 'vehicle.offline', vin: ALPHA_VINS[0], companyId: 'alpha' }), draft({ type: 'vehicle.online', vin: ALPHA_VINS[1], companyId: 'alpha' })];
    await appendEvents(svc.store.db, [
      visible[0]!,
      draft({ type: 'command.succeeded', vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: reportsId }),
      draft({ type: 'vehicle.online', vin: BETA_VINS[0], companyId: 'beta' }),
      draft({ type: 'vehicle.ignition_on', vin: ALPHA_VINS[2], companyId: 'alpha' }), // othermotors: no `event` datapoint
    ], T0);
    await appendEvents(svc.store.db, [visible[1]!], T0);
    const frames = await stream.events(2);
    expect(ids(frames)).toEqual(visible.map((e) => e.id));
    expect(frames.map((f) => f.event)).toEqual(['vehicle.offline', 'vehicle.online']);
    expect(JSON.parse(frames[0]!.data!)).toEqual({ id: visible[0]!.id, type: 'vehicle.offline', timestamp: expect.stringMatching(/-03:00$/), data: visible[0]!.data });
    // The first frame's id is where the stream started: a client cut before any event resumes there.
    expect(stream.frames[0]).toMatchObject({ retry: '5000', id: expect.stringMatching(/^ev1\./) });
    const resumed = await svc.request('GET', `/events?after=${stream.frames[0]!.id}`, { headers: dispatch });
    expect(resumed.body.data.map((e: any) => e.id)).toEqual(visible.map((e) => e.id));
    // The same events, read from the feed after the stream's first cursor, are what followed it there.
    const feed = await svc.request('GET', `/events?after=${frames[0]!.id}`, { headers: dispatch });
    expect(feed.body.data.map((e: any) => e.id)).toEqual([visible[1]!.id]);
    stream.close();
  });

  it('when a stream reconnects with Last-Event-ID, then it gets exactly what it missed, and a stream without one starts now', async () => {
    const first = await open(dispatch);
    const before = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [before], T0);
    const [seen] = await first.events(1);
    expect(ids([seen!])).toEqual([before.id]);
    first.close();
    const missed = [1, 2, 3].map(() => draft({ type: 'vehicle.offline', vin: ALPHA_VINS[0], companyId: 'alpha' }));
    await appendEvents(svc.store.db, missed, T0);
    const now = await open(dispatch);
    const again = await open({ ...dispatch, 'last-event-id': seen!.id! });
    expect(ids(await again.events(3))).toEqual(missed.map((e) => e.id));
    const later = draft({ type: 'vehicle.online', vin: ALPHA_VINS[1], companyId: 'alpha' });
    await appendEvents(svc.store.db, [later], T0);
    expect(ids(await again.events(4))).toEqual([...missed, later].map((e) => e.id));
    // The stream opened without a cursor started after what was already there.
    expect(ids(await now.events(1))).toEqual([later.id]);
  });

  it('when nothing happens, then comment lines keep the stream alive', async () => {
    const stream = await open(reports);
    await new Promise((r) => setTimeout(r, 400));
    expect(stream.frames.filter((f) => f.comments.includes('keep-alive')).length).toBeGreaterThanOrEqual(2);
    stream.close();
  });

  it('when events pass that a filtered stream does not want, then its keep-alives move its cursor past them, and resuming there misses nothing', async () => {
    const stream = await open(dispatch, '?types=trip.ended');
    const started = stream.frames[0]!.id!;
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], T0);
    for (let i = 0; i < 100 && !stream.frames.some((f) => f.comments.includes('keep-alive') && f.id !== undefined); i += 1) await new Promise((r) => setTimeout(r, 20));
    const moved = stream.frames.find((f) => f.comments.includes('keep-alive') && f.id !== undefined)!;
    expect(moved.id).not.toBe(started);
    expect(moved.data).toBeUndefined();
    const trip = draft({ type: 'trip.ended', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [trip], T0);
    expect(ids(await stream.events(1))).toEqual([trip.id]);
    // The feed after the moved cursor holds what came after it, nothing the stream skipped.
    const after = await svc.request('GET', `/events?after=${moved.id}&types=trip.ended`, { headers: dispatch });
    expect(after.body.data.map((e: any) => e.id)).toEqual([trip.id]);
    stream.close();
  });

  it('when an application holds as many streams as allowed, then one more gets 429 with the catalogue text; closing one frees a place', async () => {
    const a = await open(reports);
    const b = await open(reports);
    const c = await open(reports);
    expect(c.status).toBe(429);
    expect(JSON.parse(c.text)).toEqual({ detail: 'Too many event streams open for this application (at most 2).' });
    expect((await open(dispatch)).status).toBe(200); // another application is not counted with these
    streams.at(-1)!.close();
    a.close();
    await a.ended;
    await new Promise((r) => setTimeout(r, 50));
    const d = await open(reports);
    expect(d.status).toBe(200);
    b.close();
    d.close();
  });

  it('when the query or Last-Event-ID is bad, then an error answer and no stream', async () => {
    await new Promise((r) => setTimeout(r, 50));
    const cases: [Record<string, string>, string, number, string][] = [
      [{ 'last-event-id': 'nope' }, '', 400, 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
      [{}, '?after=ev1.%00', 400, 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
      [{}, '?types=trip.exploded', 400, 'Unknown event type: trip.exploded.'],
      [{}, '?vin=short', 400, 'vin must be a 17-character VIN.'],
    ];
    for (const [headers, query, status, detail] of cases) {
      const res = await open({ ...dispatch, ...headers }, query);
      expect({ query, status: res.status, body: JSON.parse(res.text) }).toEqual({ query, status, body: { detail } });
    }
    expect((await open({})).status).toBe(401);
  });

  it('when retention dropped events after the Last-Event-ID, then 410', async () => {
    const stream = await open(dispatch);
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], T0);
    const [frame] = await stream.events(1);
    stream.close();
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], T0);
    await svc.request('GET', '/events?limit=500', { headers: dispatch }); // numbered, so retention records it
    expect(await deleteEventsBefore(svc.store.db, Date.now() + 60_000)).toBeGreaterThan(0);
    await stream.ended;
    await new Promise((r) => setTimeout(r, 50));
    const expired = await open({ ...dispatch, 'last-event-id': frame!.id! });
    expect(expired.status).toBe(410);
  });
});

describe('GET /events/stream, the longest duration', () => {
  it('when the token that opened a stream expires, then the service ends the stream (the client reconnects with a new token)', async () => {
    const svc = await startTestService('sqlite', undefined, { http: { eventStreams: { maxDurationMs: 60_000, pollMs: 20 } } });
    try {
      const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
      // The token has a little under half a second left when the stream opens.
      svc.clock.advance(decodeJwt(token).exp! * 1000 - svc.clock.now() - 400);
      const stream = await openSse(`${svc.url}/events/stream`, { authorization: `Bearer ${token}` });
      expect(stream.status).toBe(200);
      const t0 = Date.now();
      await stream.ended;
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      await svc.close();
    }
  });

  it('when a stream has been open for the longest duration, then the service ends it (the client reconnects)', async () => {
    const svc = await startTestService('sqlite', undefined, { http: { eventStreams: { maxDurationMs: 300, pollMs: 20 } } });
    try {
      const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
      const stream = await openSse(`${svc.url}/events/stream`, { authorization: `Bearer ${token}` });
      const t0 = Date.now();
      await stream.ended;
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
      expect(Date.now() - t0).toBeLessThan(3000);
      // The stream's reply is hijacked, past the hook that sets the id and accounts for requests:
      // it has its id all the same, and its request line once it ends, with the time it was open.
      const reqId = stream.headers.get('x-request-id');
      expect(reqId).toMatch(/^[0-9a-f-]{36}$/);
      await until('the stream\'s request line', async () => svc.logs.some((l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"')));
      const line = svc.logs.map((l) => JSON.parse(l)).find((l) => l.reqId === reqId && l.msg === 'request');
      expect(line).toMatchObject({ method: 'GET', route: '/events/stream', status: 200 });
      expect(line.ms).toBeGreaterThanOrEqual(250);
    } finally {
      await svc.close();
    }
  });
});
