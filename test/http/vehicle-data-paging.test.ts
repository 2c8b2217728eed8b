import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

/** Every 7 s for 24 h: 12,343 records, many database pages of 500 (and over two ingest batches of 5,000). */
const STEP = 7_000;
const DAY = 86_400_000;

describe.each(DATABASE_KINDS)('POST /vehicle-data across page boundaries on %s', (kind) => {
  let svc: TestService;
  let expected: number;
  beforeAll(async () => {
    svc = await startTestService(kind);
    const records = [];
    for (let t = T0 - DAY; t <= T0; t += STEP) records.push({ vin: ALPHA_VINS[0], date_time: iso(t), odometer: (t - (T0 - DAY)) / STEP });
    expected = records.length;
    for (let i = 0; i < records.length; i += 5000) expect((await svc.ingest(records.slice(i, i + 5000))).body.accepted).toBe(Math.min(5000, records.length - i));
  });
  afterAll(async () => { await svc?.close(); });

  it('when a window holds more rows than a page, then every record comes once, in order', async () => {
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    const res = await svc.request('POST', '/vehicle-data', { json: { vins: [ALPHA_VINS[0]], datapoints: ['odometer'] }, headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const odometers = res.body[ALPHA_VINS[0]].map((r: { odometer: number }) => r.odometer);
    expect(odometers).toHaveLength(expected);
    expect(odometers).toEqual(Array.from({ length: expected }, (_, i) => i));
  });
});
