/**
 * A stored telemetry row that cannot be read never turns a read into a 500: rows
 * written straight into the table with a malformed `flag`, a number column holding text (SQLite
 * keeps it) or NaN/Infinity (PostgreSQL's float8 takes them), and text longer than the intake
 * keeps. GET /vehicle-data/latest answers the vehicle's newest readable record instead, POST
 * /vehicle-data leaves the row out, both answer 200 with valid JSON, and each skipped row is
 * logged and counted in `telemetry_unreadable_rows_total`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTelemetryPartitions } from '../../src/store/telemetry/partitions.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { metricSum } from '../support/metrics-text.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const MIN = 60_000;
const [GOOD_THEN_BAD, ALL_BAD] = [ALPHA_VINS[0], ALPHA_VINS[1]];

describe.each(DATABASE_KINDS)('unreadable stored telemetry on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  const unreadable = async () => metricSum((await svc.request('GET', '/metrics')).text, 'telemetry_unreadable_rows_total');

  /** Rows no intake would write, by column, each on its own instant. */
  const badRows = (vin: string, from: number) => {
    // The newest is a flag that is not JSON: what made every read of the company's latest a 500.
    const flags = ['null', '[1]', '"text"', '{"speed":"out of range"}', '{"nosuch":{"value":1,"flag":"out of range"}}', '{"speed":{"value":{"a":1},"flag":"out of range"}}', 'not json'];
    const rows: Record<string, unknown>[] = flags.map((flag, i) => ({ vin, ts: from + 30_000 + i * 1000, speed: 10, flag, received_at: T0 }));
    rows.push({ vin, ts: from + 20_000, seat_belt_status: 'x'.repeat(200), received_at: T0 });
    if (kind === 'sqlite') rows.push({ vin, ts: from + 21_000, speed: 'fast', received_at: T0 });
    else rows.push({ vin, ts: from + 21_000, speed: Number.NaN, received_at: T0 }, { vin, ts: from + 22_000, rpm: Number.POSITIVE_INFINITY, received_at: T0 });
    return rows;
  };

  beforeAll(async () => {
    svc = await startTestService(kind);
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const good = { vin: GOOD_THEN_BAD, ts: T0 - 10 * MIN, speed: 42, rpm: 1500, flag: '{"fuel_level":{"value":120,"flag":"out of range"}}', fuel_level: null, received_at: T0 };
    const rows = [good, ...badRows(GOOD_THEN_BAD, T0 - 2 * MIN), ...badRows(ALL_BAD, T0 - 3 * MIN)];
    await ensureTelemetryPartitions(svc.store, rows.map((r) => r.ts as number));
    await svc.store.db.insertInto('telemetry').values(rows as never).execute();
  });
  afterAll(async () => { await svc?.close(); });

  it('when a vehicle\'s newest records cannot be read, then GET /vehicle-data/latest answers 200 with its newest readable one, and each skipped row is counted and logged', async () => {
    const before = await unreadable();
    const res = await svc.request('GET', '/vehicle-data/latest', { headers: alpha });
    expect(res.status, res.text).toBe(200);
    const byVin = new Map((res.body as { vin: string; state: string; record: Record<string, unknown> | null }[]).map((v) => [v.vin, v]));
    expect(byVin.get(GOOD_THEN_BAD)?.record).toMatchObject({ date_time: '2026-11-20 08:50:00', speed: 42, flag: { fuel_level: { value: 120, flag: 'out of range' } } });
    // Nothing readable at all: answered as a vehicle without data, not as an error.
    expect(byVin.get(ALL_BAD)).toEqual({ vin: ALL_BAD, state: 'no_data', record: null });
    const skipped = badRows(GOOD_THEN_BAD, 0).length + badRows(ALL_BAD, 0).length;
    expect(await unreadable()).toBe(before + skipped);
    const logged = svc.logs.filter((line) => line.includes('stored telemetry row cannot be read'));
    expect(logged.length).toBeGreaterThanOrEqual(skipped);
    expect(logged.join('\n')).not.toContain('x'.repeat(200));
  });

  it('when a window holds unreadable rows, then POST /vehicle-data answers 200 with valid JSON holding only the readable ones', async () => {
    const before = await unreadable();
    const res = await svc.request('POST', '/vehicle-data', {
      headers: alpha, json: { vins: [GOOD_THEN_BAD, ALL_BAD], datapoints: ['date_time', 'speed', 'rpm', 'fuel_level', 'seat_belt_status', 'flag'], start_date: '2026-11-20T08:00:00' },
    });
    expect(res.status, res.text).toBe(200);
    expect(() => JSON.parse(res.text)).not.toThrow();
    expect(res.body).toEqual({
      [GOOD_THEN_BAD]: [{ date_time: '2026-11-20 08:50:00', speed: 42, rpm: 1500, fuel_level: null, seat_belt_status: null, flag: { fuel_level: { value: 120, flag: 'out of range' } } }],
      [ALL_BAD]: [],
    });
    expect(await unreadable()).toBe(before + badRows(GOOD_THEN_BAD, 0).length + badRows(ALL_BAD, 0).length);
  });

  it.runIf(kind === 'sqlite')('when an unreadable row ends a page (its ts a fraction of a millisecond, SQLite keeps it), then the next page starts after the page\'s instants, and no readable row after it is lost', async () => {
    const vin = GOOD_THEN_BAD;
    const base = T0 - 2 * 60 * MIN; // an hour before its other rows
    // 499 readable rows, then the 500th of the page (PAGE_ROWS) at base + 498,999.5 ms, then 21 more.
    const good = Array.from({ length: 520 }, (_, i) => ({ vin, ts: base + i * 1000, speed: i % 100, received_at: T0 }));
    const bad = { vin, ts: base + 498_999.5, speed: 1, received_at: T0 };
    await ensureTelemetryPartitions(svc.store, [base, base + 520_000]);
    await svc.store.db.insertInto('telemetry').values([...good, bad] as never).execute();
    const before = await unreadable();
    const res = await svc.request('POST', '/vehicle-data', { headers: alpha, json: { vins: [vin], datapoints: ['date_time', 'speed'], start_date: '2026-11-20T07:00:00', end_date: '2026-11-20T07:59:59' } });
    expect(res.status, res.text).toBe(200);
    const answered = (res.body as Record<string, { speed: number }[]>)[vin]!;
    expect(answered.map((r) => r.speed)).toEqual(good.map((r) => r.speed));
    expect(await unreadable()).toBe(before + 1);
  });

  it('when the unreadable column is not asked for, then the row is answered: only what is read must be readable', async () => {
    const res = await svc.request('POST', '/vehicle-data', { headers: alpha, json: { vins: [ALL_BAD], datapoints: ['date_time'], start_date: '2026-11-20T08:00:00' } });
    expect(res.status).toBe(200);
    expect(res.body[ALL_BAD]).toHaveLength(badRows(ALL_BAD, 0).length);
  });
});
