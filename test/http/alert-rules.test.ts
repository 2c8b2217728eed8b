/**
 * /alert-rules through the real server (D13): every kind created and read back with its defaults,
 * PUT replacing, DELETE, the company scope, each refusal's text, the per-company cap, and the
 * revision every change moves for the evaluator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRulesForWatch, readAlertRuleRevisions } from '../../src/store/alert-rules-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const MAX_RULES = 6;
const OFFICE = { weekly: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '08:00', to: '18:00' }] };
const DEFAULTS = { vins: null, threshold: null, schedule: null, cooldown_s: 600, enabled: true };
const UNKNOWN_ID = '0b6f3c2e-1c1a-4b5e-9a55-3d0c4f1e2a77';

describe.each(DATABASE_KINDS)('alert rules on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let alphaReports: Record<string, string>;
  let beta: Record<string, string>;
  const post = (headers: Record<string, string>, json: unknown) => svc.request('POST', '/alert-rules', { headers, json });

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { alertRules: { maxPerCompany: MAX_RULES } } });
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    alphaReports = { authorization: `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  it('when a rule of each kind is created, then each answers 201 with every default filled in, reads back the same, and the list is by name', async () => {
    const bodies = [
      [{ name: 'Speeding', kind: 'overspeed', threshold: 90 }, { threshold: 90, duration_s: 0 }],
      [{ name: 'Idling', kind: 'idling', duration_s: 300 }, { duration_s: 300 }],
      [{ name: 'Silent', kind: 'no_data', duration_s: 3600, vins: [ALPHA_VINS[1], ALPHA_VINS[0]] }, { duration_s: 3600, vins: [ALPHA_VINS[1], ALPHA_VINS[0]] }],
      [{ name: 'Fuel', kind: 'low_fuel', threshold: 10, cooldown_s: 0 }, { threshold: 10, duration_s: 0, cooldown_s: 0 }],
      [{ name: 'Battery', kind: 'low_battery', threshold: 11.8, enabled: false }, { threshold: 11.8, duration_s: 0, enabled: false }],
      [{ name: 'After hours', kind: 'after_hours', schedule: OFFICE }, { duration_s: 0, schedule: { time_zone: 'America/Sao_Paulo', weekly: OFFICE.weekly } }],
    ] as const;
    const created = [];
    for (const [body, expected] of bodies) {
      const res = await post(alpha, body);
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({ ...DEFAULTS, ...body, ...expected, id: expect.stringMatching(/^[0-9a-f-]{36}$/), created: '2026-11-20T09:00:00-03:00', updated: '2026-11-20T09:00:00-03:00' });
      expect((await svc.request('GET', `/alert-rules/${res.body.id}`, { headers: alpha })).body).toEqual(res.body);
      created.push(res.body);
    }
    const list = await svc.request('GET', '/alert-rules', { headers: alphaReports });
    expect(list.status).toBe(200);
    expect(list.body.map((r: { name: string }) => r.name)).toEqual(['After hours', 'Battery', 'Fuel', 'Idling', 'Silent', 'Speeding']);
    expect((await svc.request('GET', '/alert-rules', { headers: beta })).body).toEqual([]);
    // The evaluator's view: the enabled ones, and a revision per change.
    expect((await listRulesForWatch(svc.store.db, 'alpha')).map((r) => r.name).sort()).toEqual(['After hours', 'Fuel', 'Idling', 'Silent', 'Speeding']);
    expect((await readAlertRuleRevisions(svc.store.db)).get('alpha')).toBe(6);
    for (const rule of created) expect((await svc.request('DELETE', `/alert-rules/${rule.id}`, { headers: alpha })).status).toBe(204);
    expect((await readAlertRuleRevisions(svc.store.db)).get('alpha')).toBe(12);
  });

  it('when a rule is replaced, then every field is the new body\'s or its default, created stays, updated moves, and the revision with it', async () => {
    const first = await post(alpha, { name: 'Speeding', kind: 'overspeed', threshold: 90, duration_s: 60, cooldown_s: 30, schedule: OFFICE, vins: [ALPHA_VINS[0]] });
    const before = (await readAlertRuleRevisions(svc.store.db)).get('alpha')!;
    svc.clock.advance(90_000);
    const replaced = await svc.request('PUT', `/alert-rules/${first.body.id}`, { headers: alphaReports, json: { name: 'Speeding hard', kind: 'overspeed', threshold: 120 } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toEqual({
      ...DEFAULTS, id: first.body.id, name: 'Speeding hard', kind: 'overspeed', threshold: 120, duration_s: 0,
      created: '2026-11-20T09:00:00-03:00', updated: '2026-11-20T09:01:30-03:00',
    });
    expect((await svc.request('GET', `/alert-rules/${first.body.id}`, { headers: alpha })).body).toEqual(replaced.body);
    expect((await readAlertRuleRevisions(svc.store.db)).get('alpha')).toBe(before + 1);
    // The answer, edited, is a body PUT takes.
    const again = await svc.request('PUT', `/alert-rules/${first.body.id}`, { headers: alpha, json: { ...replaced.body, kind: 'low_fuel', threshold: 15 } });
    expect(again.body).toMatchObject({ kind: 'low_fuel', threshold: 15, name: 'Speeding hard' });
    const invalid = await svc.request('PUT', `/alert-rules/${first.body.id}`, { headers: alpha, json: { name: 'x', kind: 'idling' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ detail: 'Invalid alert rule: duration_s is required for idling: an integer from 60 to 86400 (seconds).' });
    expect(await svc.request('DELETE', `/alert-rules/${first.body.id}`, { headers: alpha })).toMatchObject({ status: 204, text: '' });
    expect((await svc.request('GET', `/alert-rules/${first.body.id}`, { headers: alpha })).status).toBe(404);
  });

  it('when another company\'s rule or a malformed id is asked for, changed or deleted, then 404 and the rule is unchanged', async () => {
    const theirs = await post(beta, { name: 'Theirs', kind: 'no_data', duration_s: 600 });
    expect(theirs.status).toBe(201);
    const notFound = { detail: 'Alert rule not found.' };
    for (const id of [theirs.body.id, UNKNOWN_ID, 'not-a-uuid', theirs.body.id.toUpperCase()]) {
      for (const [method, json] of [['GET', undefined], ['PUT', { name: 'Mine', kind: 'no_data', duration_s: 600 }], ['DELETE', undefined]] as const) {
        const res = await svc.request(method, `/alert-rules/${encodeURIComponent(id)}`, { headers: alpha, json });
        expect([res.status, res.body], `${method} ${id}`).toEqual([404, notFound]);
      }
    }
    expect((await svc.request('GET', `/alert-rules/${theirs.body.id}`, { headers: beta })).body).toEqual(theirs.body);
    expect((await svc.request('DELETE', `/alert-rules/${theirs.body.id}`, { headers: beta })).status).toBe(204);
  });

  it.each([
    ['a VIN of another company', { name: 'n', kind: 'overspeed', threshold: 90, vins: [ALPHA_VINS[0], BETA_VINS[0]] }, `vins: ${BETA_VINS[0]} is not a vehicle of the company`],
    ['an unknown VIN', { name: 'n', kind: 'overspeed', threshold: 90, vins: ['9BWZZZ377VT999999'] }, 'vins: 9BWZZZ377VT999999 is not a vehicle of the company'],
    ['a threshold for idling', { name: 'n', kind: 'idling', duration_s: 60, threshold: 1 }, 'threshold is not used by idling: leave it out'],
    ['no schedule for after_hours', { name: 'n', kind: 'after_hours' }, 'schedule is required for after_hours: the working hours, outside which use fires the rule'],
    ['an unknown time zone', { name: 'n', kind: 'after_hours', schedule: { ...OFFICE, time_zone: 'Brazil/Nowhere' } }, 'schedule.time_zone must be an IANA time zone name, such as America/Sao_Paulo'],
    ['a misspelt field', { name: 'n', kind: 'overspeed', threshold: 90, cooldown: 10 }, 'unknown field: cooldown'],
    ['a list as the body', [{ name: 'n' }], 'the body must be a JSON object'],
  ])('when the body has %s, then 400 with the problem in the detail, and nothing is created', async (_case, body, problem) => {
    const res = await post(alpha, body);
    expect([res.status, res.body]).toEqual([400, { detail: `Invalid alert rule: ${problem}.` }]);
    expect((await svc.request('GET', '/alert-rules', { headers: alpha })).body).toEqual([]);
  });

  it('when the body is not JSON or there is no token, then the catalogue\'s answers, never a 500', async () => {
    const malformed = await svc.request('POST', '/alert-rules', { headers: { ...alpha, 'content-type': 'application/json' }, raw: '{"name":' });
    expect([malformed.status, malformed.body]).toEqual([400, { detail: 'Malformed JSON body.' }]);
    const empty = await svc.request('POST', '/alert-rules', { headers: alpha });
    expect(empty.status).toBe(400);
    expect((await svc.request('GET', '/alert-rules')).status).toBe(401);
    expect((await svc.request('POST', '/alert-rules', { json: { name: 'n', kind: 'no_data', duration_s: 600 } })).status).toBe(401);
  });

  it('when a rule\'s id is given upper-cased, then it is the same rule in the path and in a preview, as a geofence\'s id is', async () => {
    const rule = await post(alpha, { name: 'Cased', kind: 'overspeed', threshold: 90, vins: [ALPHA_VINS[0]] });
    expect(rule.status).toBe(201);
    const upper = String(rule.body.id).toUpperCase();
    const read = await svc.request('GET', `/alert-rules/${upper}`, { headers: alpha });
    expect([read.status, read.body.id]).toEqual([200, rule.body.id]);
    const put = await svc.request('PUT', `/alert-rules/${upper}`, { headers: alpha, json: { name: 'Cased', kind: 'overspeed', threshold: 95 } });
    expect([put.status, put.body.id, put.body.threshold]).toEqual([200, rule.body.id, 95]);
    const tried = await svc.request('POST', '/alert-rules/preview', { headers: alpha, json: { rule_id: upper, days: 1 } });
    expect([tried.status, tried.body.rule_id]).toEqual([200, rule.body.id]);
    const fence = await svc.request('POST', '/geofences', { headers: alpha, json: { name: 'Cased', geometry: { type: 'Point', coordinates: [-46.6, -23.5] }, radius_m: 100 } });
    expect((await svc.request('GET', `/geofences/${String(fence.body.id).toUpperCase()}`, { headers: alpha })).status).toBe(200);
    expect((await svc.request('DELETE', `/alert-rules/${upper}`, { headers: alpha })).status).toBe(204);
    expect((await svc.request('GET', `/alert-rules/${rule.body.id}`, { headers: alpha })).status).toBe(404);
  });

  it('when a company has the most rules the operator allows, then one more is 409 naming the cap; another company still creates', async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_RULES; i += 1) {
      const res = await post(alpha, { name: `Rule ${i}`, kind: 'no_data', duration_s: 600 });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const over = await post(alpha, { name: 'One more', kind: 'no_data', duration_s: 600 });
    expect([over.status, over.body]).toEqual([409, { detail: `A company may have at most ${MAX_RULES} alert rules.` }]);
    const other = await post(beta, { name: 'Beta', kind: 'no_data', duration_s: 600 });
    expect(other.status).toBe(201);
    await svc.request('DELETE', `/alert-rules/${ids[0]}`, { headers: alpha });
    expect((await post(alpha, { name: 'Room again', kind: 'no_data', duration_s: 600 })).status).toBe(201);
  });
});
