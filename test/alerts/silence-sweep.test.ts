/**
 * The no_data sweep judges a silent vehicle again until its event fires or it reports: a silence
 * held back by the cooldown fires once the cooldown has passed, one that began outside the rule's
 * schedule fires when a window opens, and a process that gains a vehicle's shard notices the
 * silences it had not been looking at. Real HTTP ingest, the evaluator's pass, events read back.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyRuleSets } from '../../src/alerts/company-rule-sets.js';
import { SilenceSweeps } from '../../src/alerts/silence-sweep.js';
import { DEFAULT_DRIFT_RULES } from '../../src/domain/geofences/judge-fence.js';
import { CompanyFenceSets } from '../../src/geofences/company-fence-sets.js';
import { GeofenceFollower, runGeofenceWatchOnce } from '../../src/geofences/geofence-watch.js';
import { TurnBudget } from '../../src/workers/event-loop-turns.js';
import { VehicleShardLease } from '../../src/workers/vehicle-shard-lease.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, type TestService } from '../support/test-service.js';

const SETTINGS = { rules: DEFAULT_DRIFT_RULES, latenessMs: 60_000, movingSpeedKmh: 3 };

describe.each(DATABASE_KINDS)('the no_data sweep on %s', (kind) => {
  let svc: TestService;
  let follower: GeofenceFollower;

  beforeAll(async () => {
    svc = await startTestService(kind);
    follower = new GeofenceFollower(svc.store, new CompanyFenceSets(svc.store), undefined, new CompanyRuleSets(svc.store));
  });
  afterAll(async () => { await svc?.close(); });

  const rule = async (body: Record<string, unknown>): Promise<string> => {
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const res = await svc.request('POST', '/alert-rules', { json: body, headers: auth });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { id: string }).id;
  };
  const watch = () => runGeofenceWatchOnce(svc.store, svc.clock, SETTINGS, follower);
  const alertsOf = async (ruleId: string) => (await svc.store.db.selectFrom('events').select(['type', 'data']).where('type', '=', 'alert.no_data').orderBy('seq').execute())
    .map((e) => JSON.parse(e.data) as Record<string, unknown>)
    .filter((data) => data['rule_id'] === ruleId);
  const report = async (vin: string) => {
    const res = await svc.ingest([{ vin, date_time: iso(svc.clock.now() - 500), speed: 0 }]);
    expect(res.body).toMatchObject({ accepted: 1, rejected: [] });
    await watch();
  };
  /** Moves the clock `seconds` on, 5 s at a time, with a pass (and its sweep when due) at each step. */
  const wait = async (seconds: number) => {
    for (let s = 0; s < seconds; s += 5) {
      svc.clock.advance(5000);
      await watch();
    }
  };
  /** An event's `date_time`, local time at -03:00, as an instant. */
  const instant = (data: Record<string, unknown>) => Date.parse(`${String(data['date_time'])}-03:00`);

  it('when a vehicle goes silent again while the cooldown holds, then its silence fires once the cooldown has passed', async () => {
    const vin = ALPHA_VINS[0];
    const id = await rule({ name: 'Silent, cooled', kind: 'no_data', duration_s: 60, cooldown_s: 300, vins: [vin] });
    await report(vin);
    await wait(80);
    expect(await alertsOf(id)).toHaveLength(1);
    await report(vin);
    // The second silence reaches 60 s well inside the 300 s cooldown of the first event.
    await wait(120);
    expect(await alertsOf(id)).toHaveLength(1);
    await wait(240);
    const events = await alertsOf(id);
    expect(events).toHaveLength(2);
    expect(instant(events[1]!) - instant(events[0]!)).toBeGreaterThanOrEqual(300_000);
    expect(events[1]!['silent_s']).toBeGreaterThan(60);
  });

  it('when a vehicle goes silent outside the rule\'s schedule, then it fires when the next window opens', async () => {
    const vin = ALPHA_VINS[1];
    // A window every day starting 10 minutes from now (UTC), so the silence begins outside it.
    const minute = Math.ceil((svc.clock.now() % 86_400_000) / 60_000) + 10;
    expect(minute + 30).toBeLessThan(1440);
    const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    const opens = Math.floor(svc.clock.now() / 86_400_000) * 86_400_000 + minute * 60_000;
    const id = await rule({
      name: 'Silent in hours', kind: 'no_data', duration_s: 60, vins: [vin],
      schedule: { time_zone: 'Etc/GMT', weekly: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: hhmm(minute), to: hhmm(minute + 30) }] },
    });
    await report(vin);
    await wait(120);
    expect(await alertsOf(id)).toEqual([]);
    await wait(Math.ceil((opens - svc.clock.now()) / 1000) + 30);
    const events = await alertsOf(id);
    expect(events).toHaveLength(1);
    expect(instant(events[0]!)).toBeGreaterThanOrEqual(opens);
    expect(instant(events[0]!)).toBeLessThan(opens + 20_000);
  });

  it('when a process gains the shard of a vehicle that went silent before, then its sweep judges that silence', async () => {
    // The third alpha vehicle is a tracker's; this one is the ingest's too (the first test's rule names it, with another id).
    const vin = ALPHA_VINS[0];
    const id = await rule({ name: 'Silent, moved', kind: 'no_data', duration_s: 60, vins: [vin] });
    await report(vin);
    const lease = new VehicleShardLease(svc.store, pino({ level: 'silent' }));
    const sweeps = new SilenceSweeps();
    const rules = new CompanyRuleSets(svc.store);
    await rules.refresh();
    try {
      // Holding no shard yet, the second process passes over the silence as it crosses the cutoff.
      svc.clock.advance(70_000);
      expect(await sweeps.sweep(svc.store, svc.clock, rules, lease, new TurnBudget())).toBe(0);
      await lease.renew(svc.clock.now());
      expect(lease.holds(vin)).toBe(true);
      svc.clock.advance(15_000);
      expect(await sweeps.sweep(svc.store, svc.clock, rules, lease, new TurnBudget())).toBeGreaterThan(0);
      expect((await alertsOf(id)).map((e) => e['vin'])).toEqual([vin]);
    } finally {
      await lease.release();
    }
  });

  it('when another process\'s sweep fires for a vehicle this one keeps the state of, then this one reads the state again and the cooldown holds', async () => {
    const vin = ALPHA_VINS[1];
    const id = await rule({ name: 'Silent, two processes', kind: 'no_data', duration_s: 60, cooldown_s: 600, vins: [vin] });
    const judging = new GeofenceFollower(svc.store, new CompanyFenceSets(svc.store), undefined, new CompanyRuleSets(svc.store));
    const sweeping = new SilenceSweeps();
    const sweepingRules = new CompanyRuleSets(svc.store);
    await sweepingRules.refresh();
    const send = async () => {
      expect((await svc.ingest([{ vin, date_time: iso(svc.clock.now() - 500), speed: 0 }])).body).toMatchObject({ accepted: 1 });
      await runGeofenceWatchOnce(svc.store, svc.clock, SETTINGS, judging);
    };
    await send();
    svc.clock.advance(70_000);
    expect(await sweeping.sweep(svc.store, svc.clock, sweepingRules, undefined, new TurnBudget())).toBeGreaterThan(0);
    expect(await alertsOf(id)).toHaveLength(1);
    // The judging process's kept copy predates that event: judged from it, the cooldown's start is lost.
    svc.clock.advance(1000);
    await send();
    svc.clock.advance(70_000);
    await sweeping.sweep(svc.store, svc.clock, sweepingRules, undefined, new TurnBudget());
    expect(await alertsOf(id)).toHaveLength(1);
  });

  it('when a vehicle keeps reporting under a no_data rule, then its state of the rule is written only when a silence ends', async () => {
    const vin = ALPHA_VINS[1];
    const id = await rule({ name: 'Silent, written', kind: 'no_data', duration_s: 60, vins: [vin] });
    const row = () => svc.store.db.selectFrom('alert_states').select(['state', 'changed_at']).where('rule_id', '=', id).where('vin', '=', vin).executeTakeFirst();
    for (let i = 0; i < 5; i += 1) await report(vin);
    expect(await row()).toBeUndefined();
    await wait(80);
    expect((await alertsOf(id))).toHaveLength(1);
    await report(vin);
    const ended = await row();
    expect(JSON.parse(ended!.state)).toMatchObject({ since: null, fired: false });
    for (let i = 0; i < 5; i += 1) await report(vin);
    expect(await row()).toEqual(ended);
  });
});
