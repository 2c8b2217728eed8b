/**
 * A preview answers at most 1,000 events, the oldest, and says when it left some out
 * (events/preview-events.ts): a rule that fires on every other record of a busy vehicle does not
 * make an answer of unbounded size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INGEST_RECORDS } from '@telematics/contract';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, type TestService } from '../support/test-service.js';

describe.each(DATABASE_KINDS)('preview answer bounds on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when a rule would fire 1,005 times, then the preview shows the oldest 1,000 and says it cut the rest', async () => {
    const vin = ALPHA_VINS[0];
    const start = svc.clock.now() - 6 * 3_600_000;
    // Over and under the limit in turn, 10 s apart: an alert every 20 s.
    const records = Array.from({ length: 2010 }, (_, i) => ({ vin, date_time: iso(start + i * 10_000), speed: i % 2 === 0 ? 120 : 40 }));
    for (let i = 0; i < records.length; i += MAX_INGEST_RECORDS) {
      expect((await svc.ingest(records.slice(i, i + MAX_INGEST_RECORDS))).body).toMatchObject({ rejected: [] });
    }
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const rule = { name: 'Every pass', kind: 'overspeed', threshold: 90, duration_s: 0, cooldown_s: 0, vins: [vin] };
    const res = await svc.request('POST', '/alert-rules/preview', { json: { rule, days: 1 }, headers: auth });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    const answer = res.body as { events: { data: { date_time: string } }[]; events_truncated: boolean; truncated: boolean };
    expect(answer).toMatchObject({ truncated: false, events_truncated: true });
    expect(answer.events).toHaveLength(1000);
    expect(answer.events[0]!.data.date_time < answer.events.at(-1)!.data.date_time).toBe(true);

    const few = await svc.request('POST', '/alert-rules/preview', { json: { rule: { ...rule, threshold: 130 }, days: 1 }, headers: auth });
    expect(few.body).toMatchObject({ events: [], events_truncated: false });
    const fence = { name: 'Nowhere', geometry: { type: 'Point', coordinates: [10, 10] }, radius_m: 100 };
    expect((await svc.request('POST', '/geofences/preview', { json: { geofence: fence, days: 1 }, headers: auth })).body).toMatchObject({ events: [], events_truncated: false });
  });

  it('when both previews are asked the same scope, then they read it alike: the same problems named, vins null as all of them', async () => {
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const fence = { name: 'Nowhere', geometry: { type: 'Point', coordinates: [10, 10] }, radius_m: 100 };
    const rule = { name: 'Fast', kind: 'overspeed', threshold: 90 };
    const ask = async (path: string, json: unknown) => svc.request('POST', path, { json, headers: auth });
    const both = async (scope: Record<string, unknown>) => [
      await ask('/geofences/preview', { geofence: fence, ...scope }), await ask('/alert-rules/preview', { rule, ...scope }),
    ].map((r) => [r.status, (r.body as { detail?: string }).detail?.replace(/^Invalid (geofence|alert rule): /, '')]);
    expect(await both({ days: 8 })).toEqual([[400, 'days must be a whole number from 1 to 7.'], [400, 'days must be a whole number from 1 to 7.']]);
    expect(await both({ vins: [] })).toEqual([[400, 'vins must be a list of 1 to 1000 VINs of the company.'], [400, 'vins must be a list of 1 to 1000 VINs of the company.']]);
    expect(await both({ vins: ['9BWAB45U8NT100004'] })).toEqual([[400, 'vins: 9BWAB45U8NT100004 is not a vehicle of the company.'], [400, 'vins: 9BWAB45U8NT100004 is not a vehicle of the company.']]);
    expect(await both({ vins: null, days: 1 })).toEqual([[200, undefined], [200, undefined]]);
  });
});
