import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
/** ALPHA_VINS[0] reports every 10 minutes from exactly 7 days back to exactly now. */
const STEP = 10 * MIN;
const FLAGGED_AT = T0 - 30 * MIN;

describe.each(DATABASE_KINDS)('POST /vehicle-data on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let beta: Record<string, string>;

  beforeAll(async () => {
    svc = await startTestService(kind);
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
    const records = [];
    for (let t = T0 - 7 * DAY, i = 0; t <= T0; t += STEP, i += 1) {
      records.push(t === FLAGGED_AT
        ? { vin: ALPHA_VINS[0], date_time: iso(t), speed: 999, rpm: 'fast', odometer: 10_000 + i, lv_battery_voltage: 12.6 }
        : { vin: ALPHA_VINS[0], date_time: iso(t), speed: i % 100, rpm: 800 + i, odometer: 10_000 + i, lv_battery_voltage: 12.6, seat_belt_status: 'not buckled' });
    }
    records.push({ vin: BETA_VINS[0], date_time: iso(T0 - 2 * MIN), speed: 12 });
    // Out of order on purpose: storage orders, not arrival.
    records.reverse();
    for (let i = 0; i < records.length; i += 500) {
      const res = await svc.ingest(records.slice(i, i + 500));
      expect(res.body.rejected).toEqual([]);
    }
  });
  afterAll(async () => { await svc?.close(); });

  const query = (body: unknown, headers = alpha) => svc.request('POST', '/vehicle-data', { json: body, headers });
  const times = (records: { date_time: string }[]) => records.map((r) => r.date_time);

  it('when no dates are given, then the last 24 hours up to now are returned, ascending, with exactly the requested datapoints', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['speed', 'date_time'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const records = res.body[ALPHA_VINS[0]];
    expect(records).toHaveLength(24 * 6 + 1);
    expect(records[0]).toEqual({ speed: expect.any(Number), date_time: '2026-11-19 09:00:00' });
    expect(records.at(-1).date_time).toBe('2026-11-20 09:00:00');
    expect(times(records)).toEqual([...times(records)].sort());
    for (const r of records) expect(Object.keys(r)).toEqual(['speed', 'date_time']);
  });

  it('when both dates are given, then the bounds are inclusive', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], start_date: '2026-11-20T08:00:00', end_date: '2026-11-20T08:20:00' });
    expect(times(res.body[ALPHA_VINS[0]])).toEqual(['2026-11-20 08:00:00', '2026-11-20 08:10:00', '2026-11-20 08:20:00']);
  });

  it('when only start_date is given, then the window runs 24 h from it, clamped to now', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], start_date: '2026-11-20T08:30:00' });
    expect(times(res.body[ALPHA_VINS[0]])).toEqual(['2026-11-20 08:30:00', '2026-11-20 08:40:00', '2026-11-20 08:50:00', '2026-11-20 09:00:00']);
    const full = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], start_date: '2026-11-14' });
    expect(times(full.body[ALPHA_VINS[0]])).toHaveLength(24 * 6 + 1);
    expect(full.body[ALPHA_VINS[0]].at(-1).date_time).toBe('2026-11-15 00:00:00');
  });

  it('when only end_date is given, then the window runs 24 h up to it, clamped to 7 days back', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], end_date: '2026-11-13T12:00:00' });
    expect(res.body[ALPHA_VINS[0]][0].date_time).toBe('2026-11-13 09:00:00');
    expect(res.body[ALPHA_VINS[0]].at(-1).date_time).toBe('2026-11-13 12:00:00');
  });

  it('when start_date is exactly 7 days back and the span exactly 24 h, then both ends are included', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], start_date: '2026-11-13T09:00:00', end_date: '2026-11-14T09:00:00' });
    const records = res.body[ALPHA_VINS[0]];
    expect(records[0].date_time).toBe('2026-11-13 09:00:00');
    expect(records.at(-1).date_time).toBe('2026-11-14 09:00:00');
  });

  it('when end_date equals now, then the record at now is included', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], end_date: '2026-11-20T09:00:00' });
    expect(res.body[ALPHA_VINS[0]].at(-1).date_time).toBe('2026-11-20 09:00:00');
  });

  it('when a date carries an explicit offset, then that offset is used', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], start_date: '2026-11-20T06:20:00-05:00', end_date: '2026-11-20T06:40:00-05:00' });
    expect(times(res.body[ALPHA_VINS[0]])).toEqual(['2026-11-20 08:20:00', '2026-11-20 08:30:00', '2026-11-20 08:40:00']);
  });

  it('when a date is date-only, then it means T00:00:00 at -03:00', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['date_time'], start_date: '2026-11-19', end_date: '2026-11-19T00:10:00' });
    expect(times(res.body[ALPHA_VINS[0]])).toEqual(['2026-11-19 00:00:00', '2026-11-19 00:10:00']);
  });

  it.each([
    [{ start_date: '2026-11-20T09:00:01' }, 'start_date or end_date are in the future.'],
    [{ end_date: '2026-11-21' }, 'start_date or end_date are in the future.'],
    [{ start_date: '2026-11-13T08:59:59' }, 'start_date or end_date are out of the range of 7 days.'],
    [{ start_date: '2026-11-20T08:00:00', end_date: '2026-11-20T07:00:00' }, 'start_date is greater than end_date.'],
    [{ start_date: '2026-11-18T00:00:00', end_date: '2026-11-19T00:00:01' }, 'Difference between start_date and end_date cannot exceed 24 hours.'],
    [{ start_date: '2026/11/18' }, 'Invalid start_date: use YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or YYYY-MM-DDTHH:MM:SS±HH:MM.'],
  ])('when the dates are %j, then 400 %s', async (dates, detail) => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['speed'], ...dates });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
  });

  it('when more than 20 distinct VINs are sent, then 400; duplicates count once', async () => {
    const many = Array.from({ length: 21 }, (_, i) => `9BWZZZ377VT${String(200000 + i)}`);
    const res = await query({ vins: many, datapoints: ['speed'] });
    expect(res).toMatchObject({ status: 400, body: { detail: 'Too many VINs provided. Maximum allowed is 20.' } });
    const thousands = await query({ vins: Array.from({ length: 1500 }, (_, i) => `9BWZZZ377VT${String(200000 + i)}`), datapoints: ['speed'] });
    expect(thousands).toMatchObject({ status: 400, body: { detail: 'Too many VINs provided. Maximum allowed is 20.' } });
    const duplicated = await query({ vins: [...Array(25).fill(ALPHA_VINS[0])], datapoints: ['speed'] });
    expect(duplicated.status).toBe(200);
    expect(Object.keys(duplicated.body)).toEqual([ALPHA_VINS[0]]);
  });

  it('when a VIN is another company\'s, unknown or malformed, then 404 VIN not found or unauthorized access.', async () => {
    for (const vins of [[ALPHA_VINS[0], BETA_VINS[0]], ['9BWZZZ377VT999999'], ['not a vin']]) {
      const res = await query({ vins, datapoints: ['speed'] });
      expect(res).toMatchObject({ status: 404, body: { detail: 'VIN not found or unauthorized access.' } });
    }
    expect((await query({ vins: [ALPHA_VINS[0]], datapoints: ['speed'] }, beta)).status).toBe(404);
  });

  it('when a datapoint is unknown, then 400 naming it', async () => {
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['speed', 'warp_factor'] });
    expect(res).toMatchObject({ status: 400, body: { detail: 'Unknown datapoint: warp_factor.' } });
  });

  it('when the vehicle\'s OEM does not provide a datapoint, then 404 Unsupported datapoint for this vehicle.', async () => {
    const res = await query({ vins: [ALPHA_VINS[0], ALPHA_VINS[2]], datapoints: ['speed', 'rpm'] });
    expect(res).toMatchObject({ status: 404, body: { detail: 'Unsupported datapoint for this vehicle.' } });
  });

  it('when the company\'s plan lacks a datapoint, then 404 Datapoint not included in your package plan.', async () => {
    const res = await query({ vins: [BETA_VINS[0]], datapoints: ['speed', 'rpm'] }, beta);
    expect(res).toMatchObject({ status: 404, body: { detail: 'Datapoint not included in your package plan.' } });
    const allowed = await query({ vins: [BETA_VINS[0]], datapoints: ['vin', 'speed'] }, beta);
    expect(allowed.body).toEqual({ [BETA_VINS[0]]: [{ vin: BETA_VINS[0], speed: 12 }] });
  });

  it('when no VIN has data in the window, then 404 naming the window at -03:00', async () => {
    const res = await query({ vins: [ALPHA_VINS[1]], datapoints: ['speed'], start_date: '2026-11-19T00:00:00', end_date: '2026-11-19T12:00:00' });
    expect(res).toMatchObject({ status: 404, body: { detail: 'No data for the given date range: 2026-11-19T00:00:00 to 2026-11-19T12:00:00.' } });
  });

  it('when some VINs have data and others not, then every VIN has a key, in request order', async () => {
    const res = await query({ vins: [ALPHA_VINS[1], ALPHA_VINS[0]], datapoints: ['vin'], start_date: '2026-11-20T08:50:00' });
    expect(res.text.startsWith(`{"${ALPHA_VINS[1]}":[],"${ALPHA_VINS[0]}":[`)).toBe(true);
    expect(res.body[ALPHA_VINS[0]]).toEqual([{ vin: ALPHA_VINS[0] }, { vin: ALPHA_VINS[0] }]);
  });

  it('when a value was corrected at ingest, then it is null and flag holds the original, for requested datapoints only', async () => {
    const window = { start_date: '2026-11-20T08:30:00', end_date: '2026-11-20T08:30:00' };
    const res = await query({ vins: [ALPHA_VINS[0]], datapoints: ['speed', 'rpm', 'flag', 'odometer'], ...window });
    expect(res.body[ALPHA_VINS[0]]).toEqual([{
      speed: null, rpm: null, odometer: expect.any(Number),
      flag: { speed: { value: 999, flag: 'out of range' }, rpm: { value: 'fast', flag: 'invalid type' } },
    }]);
    const narrower = await query({ vins: [ALPHA_VINS[0]], datapoints: ['rpm', 'flag'], ...window });
    expect(narrower.body[ALPHA_VINS[0]]).toEqual([{ rpm: null, flag: { rpm: { value: 'fast', flag: 'invalid type' } } }]);
    const clean = await query({ vins: [ALPHA_VINS[0]], datapoints: ['flag', 'seat_belt_status'], start_date: '2026-11-20T08:40:00', end_date: '2026-11-20T08:40:00' });
    expect(clean.body[ALPHA_VINS[0]]).toEqual([{ flag: {}, seat_belt_status: 'not buckled' }]);
  });

  it.each([
    [{}, 'Invalid request: body must have required property \'vins\'.'],
    [{ vins: ALPHA_VINS[0], datapoints: ['speed'] }, 'Invalid request: body.vins must be array.'],
    [{ vins: [], datapoints: ['speed'] }, 'Invalid request: body.vins must NOT have fewer than 1 items.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: [] }, 'Invalid request: body.datapoints must NOT have fewer than 1 items.'],
    [{ vins: [42], datapoints: ['speed'] }, 'Invalid request: body.vins.0 must be string.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: ['speed'], start_date: 20261120 }, 'Invalid request: body.start_date must be string.'],
  ])('when the body is %j, then 400 %s', async (body, detail) => {
    const res = await query(body);
    expect(res).toMatchObject({ status: 400, body: { detail } });
  });

  it('when the body is not JSON, then 400 or 415 with a detail', async () => {
    expect(await svc.request('POST', '/vehicle-data', { raw: '{"vins":', headers: { ...alpha, 'content-type': 'application/json' } }))
      .toMatchObject({ status: 400, body: { detail: 'Malformed JSON body.' } });
    expect(await svc.request('POST', '/vehicle-data', { raw: 'vins=1', headers: { ...alpha, 'content-type': 'text/plain' } }))
      .toMatchObject({ status: 415, body: { detail: 'Unsupported content type. Expected application/json.' } });
  });

  it('when unauthenticated, then 401 before the body is looked at', async () => {
    expect((await query({ vins: 'garbage' }, {})).status).toBe(401);
  });
});
