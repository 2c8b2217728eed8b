/**
 * GET /console/api/alerts over real HTTP on both databases: a company's alert and geofence
 * events newest first, paged backwards without gaps or repeats, the feed's filters and their
 * texts, the catalogue's answers to a bad cursor or limit, another company's events never
 * shown, and each event seen as GET /events shows it (the datapoint rules).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf, type EventDraft } from '../../src/domain/events.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { addPerson, consoleSignIn, TEST_CONSOLE_USERS } from '../support/console-people.js';

const CONSOLE = { 'x-telematics-console': '1' };
const SESSIONS = { idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 };
const ALPHA_FULL = ALPHA_VINS[0];
/** othermotors: vin and speed only, no position, no fuel level. */
const ALPHA_SPEED_ONLY = ALPHA_VINS[2];

type Seen = { id: string; type: string; timestamp: string; data: Record<string, unknown> };

describe.each(DATABASE_KINDS)('GET /console/api/alerts on %s', (kind) => {
  let svc: TestService;
  let alpha: string;
  let beta: string;
  let label = 0;
  const draft = (type: EventDraft['type'], vin: string, companyId: string, data: Record<string, unknown> = {}): EventDraft => {
    label += 1;
    return { id: eventIdOf('console-alerts-test', label), type, vin, companyId, applicationId: null, occurredAt: T0 + label * 1000, data: { vin, n: label, ...data } };
  };
  const overspeed = (vin: string, companyId = 'alpha') => draft('alert.overspeed', vin, companyId, { rule_id: 'r1', rule_name: 'Speeding', speed: 120, limit: 90, latitude: -23.5, longitude: -46.6 });
  const entered = (vin: string, companyId = 'alpha') => draft('geofence.entered', vin, companyId, { geofence_id: 'g1', geofence_name: 'Depot', latitude: -23.5, longitude: -46.6, late: false });
  const lowFuel = (vin: string) => draft('alert.low_fuel', vin, 'alpha', { rule_id: 'r2', fuel_level: 9, threshold: 10 });

  const get = (session: string, query = '') => svc.request('GET', `/console/api/alerts${query}`, { headers: { cookie: `telematics_console=${session}` } });
  /** Every page from the newest to the oldest, and how many pages it took. */
  const readAll = async (session: string, query: string) => {
    const seen: Seen[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const res = await get(session, `?${query}${before ? `&before=${before}` : ''}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...(res.body.data as Seen[]));
      before = res.body.next_cursor as string | null;
      pages += 1;
    } while (before !== null);
    return { seen, pages };
  };

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { console: { sessions: SESSIONS, basemap: null, users: TEST_CONSOLE_USERS } } });
    alpha = await consoleSignIn(svc, await addPerson(svc, 'alpha', 'viewer'));
    beta = await consoleSignIn(svc, await addPerson(svc, 'beta', 'viewer'));
  });
  afterAll(async () => { await svc?.close(); });

  it('when alerts, fence events, trips and another company\'s events are written, then the company reads its alerts and fence events newest first, page by page with none lost or repeated', async () => {
    const mine = [overspeed(ALPHA_FULL), entered(ALPHA_FULL), overspeed(ALPHA_FULL), draft('geofence.exited', ALPHA_FULL, 'alpha', { latitude: -23.5, longitude: -46.6 }), overspeed(ALPHA_FULL), entered(ALPHA_FULL), overspeed(ALPHA_FULL)];
    const others = [overspeed(BETA_VINS[0], 'beta'), entered(BETA_VINS[1], 'beta'), draft('trip.ended', ALPHA_FULL, 'alpha'), draft('vehicle.online', ALPHA_FULL, 'alpha')];
    // Interleaved, in three writes: positions follow the writes, newest first is the reverse.
    await appendEvents(svc.store.db, [mine[0]!, others[0]!, mine[1]!], T0);
    await appendEvents(svc.store.db, [others[2]!, mine[2]!, mine[3]!, others[1]!], T0);
    await appendEvents(svc.store.db, [mine[4]!, others[3]!, mine[5]!, mine[6]!], T0);
    const newestFirst = mine.map((e) => e.id).reverse();

    const whole = await get(alpha);
    expect(whole.status).toBe(200);
    expect(whole.body.data.map((e: Seen) => e.id)).toEqual(newestFirst);
    expect(whole.body.next_cursor).toBeNull();
    expect(whole.body.data[0]).toEqual({ id: mine[6]!.id, type: 'alert.overspeed', timestamp: expect.stringMatching(/-03:00$/), data: mine[6]!.data });

    for (const limit of [1, 2, 3]) {
      const { seen, pages } = await readAll(alpha, `limit=${limit}`);
      expect(seen.map((e) => e.id)).toEqual(newestFirst);
      expect(pages).toBe(Math.ceil(mine.length / limit));
    }
    // Events written after a page was read go to the top; the older pages read on unchanged.
    const first = await get(alpha, '?limit=3');
    const newer = overspeed(ALPHA_FULL);
    await appendEvents(svc.store.db, [newer], T0);
    const second = await get(alpha, `?limit=3&before=${first.body.next_cursor}`);
    expect([...first.body.data, ...second.body.data].map((e: Seen) => e.id)).toEqual(newestFirst.slice(0, 6));
    expect((await get(alpha, '?limit=1')).body.data[0].id).toBe(newer.id);

    // The other company sees its own only: its overspeed, not its fence entry (its plan reads no position).
    const theirs = await readAll(beta, 'limit=100');
    expect(theirs.seen.map((e) => e.id)).toEqual([others[0]!.id]);
    expect(await svc.store.db.selectFrom('events').select('id').where('id', '=', others[1]!.id).executeTakeFirst()).toBeDefined();
  });

  it('when filtered by types or vin, then only those; a type outside the history selects nothing', async () => {
    const overspeeds = (await readAll(alpha, 'types=alert.overspeed')).seen;
    expect(overspeeds.length).toBeGreaterThan(0);
    expect(new Set(overspeeds.map((e) => e.type))).toEqual(new Set(['alert.overspeed']));
    const fences = (await readAll(alpha, 'types=geofence.entered,geofence.exited&limit=2')).seen;
    expect(new Set(fences.map((e) => e.type))).toEqual(new Set(['geofence.entered', 'geofence.exited']));
    const every = (await readAll(alpha, 'limit=100')).seen;
    expect(fences.map((e) => e.id)).toEqual(every.filter((e) => e.type.startsWith('geofence.')).map((e) => e.id));

    const other = overspeed(ALPHA_VINS[1]);
    await appendEvents(svc.store.db, [other], T0);
    expect((await readAll(alpha, `vin=${ALPHA_VINS[1]}`)).seen.map((e) => e.id)).toEqual([other.id]);
    expect((await readAll(alpha, `vin=${ALPHA_FULL}`)).seen.map((e) => e.id)).not.toContain(other.id);

    const trips = await get(alpha, '?types=trip.ended');
    expect(trips.body).toEqual({ data: [], next_cursor: null });
  });

  it.each([
    ['an unknown type', '?types=alert.overspeed,alert.speeding', 'Unknown event type: alert.speeding.'],
    ['a malformed VIN', '?vin=ABC', 'vin must be a 17-character VIN.'],
    ['a cursor this service did not make', '?before=ev1.zzz', 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
    ['a cursor of another kind', '?before=12', 'Invalid cursor: use a next_cursor (or an event stream id) given by this service.'],
    ['limit 0', '?limit=0', 'limit must be an integer from 1 to 100 alerts a page.'],
    ['limit 101', '?limit=101', 'limit must be an integer from 1 to 100 alerts a page.'],
    ['a limit that is not a number', '?limit=ten', 'limit must be an integer from 1 to 100 alerts a page.'],
  ])('when asked with %s, then 400 with the catalogue text', async (_label, query, detail) => {
    const res = await get(alpha, query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
  });

  it('when not signed in, then 401 and no events', async () => {
    const res = await svc.request('GET', '/console/api/alerts');
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('alert.');
  });

  it('when a vehicle\'s datapoints are not readable, then its alerts judged from them and its fence events are hidden, and its other alerts lose the fields it may not read', async () => {
    const hiddenFuel = lowFuel(ALPHA_SPEED_ONLY);
    const hiddenFence = entered(ALPHA_SPEED_ONLY);
    const shownSpeed = overspeed(ALPHA_SPEED_ONLY);
    const fullFuel = lowFuel(ALPHA_FULL);
    await appendEvents(svc.store.db, [hiddenFuel, hiddenFence, shownSpeed, fullFuel], T0);

    const page = (await get(alpha, '?limit=4')).body;
    expect(page.data.map((e: Seen) => e.id)).toEqual([fullFuel.id, shownSpeed.id]);
    const speed = page.data[1] as Seen;
    expect(speed.data).toMatchObject({ vin: ALPHA_SPEED_ONLY, speed: 120, limit: 90 });
    expect(speed.data).not.toHaveProperty('latitude');
    expect(speed.data).not.toHaveProperty('longitude');
    // A page whose hidden events fill it still moves on: the next page starts below them.
    expect(page.next_cursor).not.toBeNull();
    const feed = await svc.request('GET', `/events?types=alert.overspeed&vin=${ALPHA_SPEED_ONLY}`, { headers: { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` } });
    // Exactly as the feed shows it.
    expect(feed.body.data.find((e: Seen) => e.id === shownSpeed.id)).toEqual(speed);
    const rest = (await readAll(alpha, `limit=100&before=${page.next_cursor}`)).seen.map((e) => e.id);
    expect(rest).not.toContain(hiddenFuel.id);
    expect(rest).not.toContain(hiddenFence.id);
    expect(rest).not.toContain(shownSpeed.id);
  });
});
