/**
 * What the OsmAnd port answers when it cannot take a request, over real HTTP: every error is
 * `{"detail": …}` with a fixed text that quotes nothing of the request (headers too large, an
 * unrouted method, an undecodable URL, a broken JSON body), and a position dated in the future or
 * before the data kept is an error the app shows (400), counted, instead of a 200 for nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { metricValue } from '../support/metrics-text.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { TRACKED, trackerFleet } from '../support/tracker-fleet.js';

const { vin, id } = TRACKED.phone;
/** Written into each request: it must not come back. */
const MARKER = 'echoed-marker-7f3a';
const YEAR_2100 = Date.UTC(2100, 0, 1);

describe.each(DATABASE_KINDS)('OsmAnd answers on %s', (kind) => {
  let svc: TestService;
  let base: string;

  beforeAll(async () => {
    svc = await startTestService(kind, trackerFleet(), { gateway: true });
    base = `http://127.0.0.1:${svc.gateway!.listening.osmand!.port}`;
  });
  afterAll(async () => { await svc?.close(); });

  const stored = async () => (await svc.store.db.selectFrom('telemetry').select('ts').where('vin', '=', vin).execute()).map((r) => Number(r.ts));
  const refusedForDate = () => metricValue(svc.metrics, 'tracker_packets_total', { protocol: 'osmand', transport: 'http', outcome: 'date_out_of_range' });

  /** A fetch answer in rawRequest's shape (a body rawRequest cannot send: broken JSON). */
  const fetched = async (answer: Promise<Response>) => {
    const res = await answer;
    return { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? undefined }, body: Buffer.from(await res.text()) };
  };

  it('when a request cannot be taken, then the answer is {"detail"} with a fixed text and nothing of the request in it', async () => {
    const answers = [
      await rawRequest(`${base}/${MARKER}?id=${id}`, { headers: { 'x-filler': MARKER.repeat(1200) } }),
      await rawRequest(`${base}/${MARKER}?id=${id}&lat=1&lon=2`, { method: 'DELETE' }),
      await rawRequest(`${base}/%zz${MARKER}?id=${id}`),
      await fetched(fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"device_id": "${MARKER}` })),
    ];
    expect(answers.map((a) => a.status)).toEqual([431, 404, 400, 400]);
    for (const answer of answers) {
      const text = answer.body.toString();
      expect(answer.headers['content-type'], text).toMatch(/^application\/json/);
      expect(Object.keys(JSON.parse(text))).toEqual(['detail']);
      expect(text).not.toContain(MARKER);
    }
    expect(JSON.parse(answers[0]!.body.toString())).toEqual({ detail: 'Request headers are too large.' });
    expect(JSON.parse(answers[1]!.body.toString())).toEqual({ detail: 'Not found: the OsmAnd port takes positions by GET, POST or PUT.' });
  });

  it('when a position is dated 2100 or 1970, then 400 with a detail the app shows, it is not stored, and the refusal is counted', async () => {
    const before = await stored();
    const counted = await refusedForDate();
    const future = await fetch(`${base}/?id=${id}&timestamp=${YEAR_2100 / 1000}&lat=-23.5&lon=-46.6`, { method: 'POST' });
    expect([future.status, await future.json()]).toEqual([400, { detail: 'The position was not stored: dated in the future or older than the data this service keeps. Check the date and time of the phone.' }]);
    const epoch = await fetch(`${base}/?id=${id}&timestamp=1&lat=-23.5&lon=-46.6`);
    expect(epoch.status).toBe(400);
    expect(await stored()).toEqual(before);
    expect(await refusedForDate()).toBe(counted + 2);
  });

  it('when a JSON batch mixes a position in range with one dated 2100, then the one in range is stored and the answer says 1 of 2 were not', async () => {
    const at = T0 - 30_000;
    const location = (ts: number) => ({ timestamp: new Date(ts).toISOString(), coords: { latitude: -23.5, longitude: -46.6, speed: 1 } });
    const res = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ device_id: id, location: [location(at), location(YEAR_2100)] }) });
    expect([res.status, await res.json()]).toEqual([400, { detail: '1 of 2 positions were not stored: dated in the future or older than the data this service keeps. Check the date and time of the phone.' }]);
    expect(await stored()).toContain(at);
  });
});
