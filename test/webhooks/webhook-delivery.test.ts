/**
 * Webhooks end to end through the real service and real HTTP receivers on loopback: registration
 * and the verification challenge, Standard Webhooks signatures (checked as a receiver checks
 * them), who receives what, the retry schedule on the test clock, Retry-After, 410, redirects,
 * timeouts, the disable rule, secret rotation, leases that lapse (the same webhook-id again),
 * recovery, the attempt log, and two dispatchers on one database.
 */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf, type EventDraft } from '../../src/domain/events.js';
import { verifyWebhook } from '../../src/domain/webhook-signature.js';
import { dispatcherNews } from '../../src/store/webhooks/dispatcher-news.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { countedStore } from '../support/statement-count.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { answerChallenge, startWebhookReceiver, type Received, type WebhookReceiver } from '../support/webhook-receiver.js';
import { createLogger } from '../../src/logger.js';
import { Registry } from 'prom-client';
import { WebhookMetrics } from '../../src/delivery/webhook-metrics.js';

describe.each(DATABASE_KINDS)('webhooks on %s', (kind) => {
  let svc: TestService;
  let auth: { dispatch: Record<string, string>; reports: Record<string, string>; beta: Record<string, string> };
  let reportsId: string;
  let dispatchId: string;
  const receivers: WebhookReceiver[] = [];
  let label = 0;
  const draft = (fields: Partial<EventDraft> & Pick<EventDraft, 'type' | 'vin' | 'companyId'>): EventDraft => {
    label += 1;
    return { id: eventIdOf('webhook-test', kind, label), applicationId: null, occurredAt: T0 + label * 1000, data: { vin: fields.vin, n: label }, ...fields };
  };
  const receiver = async () => {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  };
  /** A verified endpoint of `app` delivering to a new receiver. */
  const endpoint = async (app: Record<string, string>, eventTypes: string[] = ['*']) => {
    const r = await receiver();
    const res = await svc.request('POST', '/webhook-endpoints', { headers: app, json: { url: r.url, event_types: eventTypes } });
    expect(res.status, res.text).toBe(201);
    await r.waitFor(1, 'webhook.verification');
    await waitUntil(async () => (await svc.request('GET', `/webhook-endpoints/${res.body.id}`, { headers: app })).body.status === 'enabled');
    return { receiver: r, id: res.body.id as string, secret: res.body.secret as string };
  };
  const waitUntil = async (check: () => Promise<boolean>, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  /** Fans out and sends what is due now, and waits for the attempts to end. */
  const deliver = async () => {
    await svc.dispatcher.runOnce();
    await svc.dispatcher.settle();
  };
  const delivery = (endpointId: string, eventId: string) =>
    svc.store.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('event_id', '=', eventId).executeTakeFirstOrThrow();
  const verified = (r: Received, secret: string) => verifyWebhook(secret, {
    id: String(r.headers['webhook-id']), timestamp: String(r.headers['webhook-timestamp']), signature: String(r.headers['webhook-signature']),
  }, r.body, Number(r.headers['webhook-timestamp']));

  /** Tokens as of the test clock (tests move it by days). */
  const signIn = async () => {
    auth = {
      dispatch: { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` },
      reports: { authorization: `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}` },
      beta: { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` },
    };
  };

  beforeAll(async () => {
    svc = await startTestService(kind);
    await signIn();
    const apps = await svc.store.db.selectFrom('applications').select(['id', 'client_id']).execute();
    reportsId = apps.find((a) => a.client_id === 'alpha-reports')!.id;
    dispatchId = apps.find((a) => a.client_id === 'alpha-dispatch')!.id;
    await deliver(); // past whatever the fixture wrote
  });
  afterEach(async () => {
    // Each test starts with no endpoint: deliveries of one test never reach another's receivers.
    await signIn();
    for (const app of Object.values(auth)) {
      for (const e of (await svc.request('GET', '/webhook-endpoints', { headers: app })).body) await svc.request('DELETE', `/webhook-endpoints/${e.id}`, { headers: app });
    }
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(async () => { await svc?.close(); });

  it('when an endpoint is registered, then it gets a secret once, receives a signed challenge, and is enabled only once it answers it', async () => {
    const r = await receiver();
    r.answer = (_, res) => { res.writeHead(200).end('not the challenge'); };
    const res = await svc.request('POST', '/webhook-endpoints', { headers: auth.dispatch, json: { url: r.url, event_types: ['trip.ended', 'command.failed'] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String), url: r.url, event_types: ['trip.ended', 'command.failed'], status: 'pending_verification', disabled_reason: null,
      created: expect.stringMatching(/-03:00$/), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const [challenge] = await r.waitFor(1, 'webhook.verification');
    expect(verified(challenge!, res.body.secret)).toEqual({ ok: true });
    expect(challenge!.headers['webhook-id']).toBe(challenge!.event.id);
    expect(challenge!.event.data).toEqual({ endpoint_id: res.body.id, challenge: expect.any(String) });
    await new Promise((r) => setTimeout(r, 50));
    const pending = await svc.request('GET', `/webhook-endpoints/${res.body.id}`, { headers: auth.dispatch });
    expect(pending.body.status).toBe('pending_verification');
    expect(pending.body).not.toHaveProperty('secret');
    // Nothing is sent to an endpoint that has not answered.
    await appendEvents(svc.store.db, [draft({ type: 'trip.ended', vin: ALPHA_VINS[0], companyId: 'alpha' })], svc.clock.now());
    await deliver();
    expect(r.received.filter((x) => x.event.type === 'trip.ended')).toEqual([]);

    r.answer = answerChallenge;
    const again = await svc.request('POST', `/webhook-endpoints/${res.body.id}/verify`, { headers: auth.dispatch });
    expect(again.body).toMatchObject({ status: 'enabled', verification: { verified: true, status_code: 200, error: null } });
  });

  it('when events commit, then each endpoint receives those its application may see, signed, with the event id as webhook-id', async () => {
    const dispatch = await endpoint(auth.dispatch);
    const reports = await endpoint(auth.reports, ['command.succeeded', 'vehicle.offline']);
    const beta = await endpoint(auth.beta);
    const ownCommand = draft({ type: 'command.succeeded', vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: dispatchId });
    const otherCommand = draft({ type: 'command.succeeded', vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: reportsId });
    const offline = draft({ type: 'vehicle.offline', vin: ALPHA_VINS[1], companyId: 'alpha' });
    const hidden = draft({ type: 'vehicle.ignition_on', vin: ALPHA_VINS[2], companyId: 'alpha' }); // othermotors: no `event` datapoint
    const betaOnline = draft({ type: 'vehicle.online', vin: BETA_VINS[0], companyId: 'beta' });
    await appendEvents(svc.store.db, [ownCommand, otherCommand, offline, hidden, betaOnline], svc.clock.now());
    await deliver();
    // Several attempts go to one endpoint at once, so arrival order is not promised (docs/events.md).
    const ids = (r: WebhookReceiver) => r.received.filter((x) => !x.event.type.startsWith('webhook.')).map((x) => x.event.id).sort();
    expect(ids(dispatch.receiver)).toEqual([ownCommand.id, offline.id].sort());
    expect(ids(reports.receiver)).toEqual([otherCommand.id, offline.id].sort());
    expect(ids(beta.receiver)).toEqual([betaOnline.id]);
    const [first] = dispatch.receiver.received.filter((x) => x.event.id === ownCommand.id);
    expect(first!.headers['webhook-id']).toBe(ownCommand.id);
    expect(first!.headers['content-type']).toBe('application/json');
    expect(first!.headers['user-agent']).toMatch(/^telematics-webhooks\//);
    expect(verified(first!, dispatch.secret)).toEqual({ ok: true });
    expect(verified(first!, reports.secret)).toEqual({ ok: false, reason: 'bad-signature' });
    // The body is what the feed gives for the same event.
    const feed = await svc.request('GET', '/events?types=command.succeeded&limit=500', { headers: auth.dispatch });
    expect(JSON.parse(first!.body)).toEqual(feed.body.data.find((e: any) => e.id === ownCommand.id));
    await deliver();
    expect(ids(dispatch.receiver)).toHaveLength(2); // nothing twice
  });

  it('when a long run of events the endpoint may not see comes first, then one pass still reaches the visible event behind it', async () => {
    const { receiver: r } = await endpoint(auth.dispatch);
    // othermotors has no `event` datapoint: its ignition events are read and skipped, never sent.
    const hidden = Array.from({ length: 300 }, () => draft({ type: 'vehicle.ignition_on', vin: ALPHA_VINS[2], companyId: 'alpha' }));
    const visible = draft({ type: 'vehicle.offline', vin: ALPHA_VINS[1], companyId: 'alpha' });
    await appendEvents(svc.store.db, [...hidden, visible], svc.clock.now());
    await deliver();
    expect(r.received.filter((x) => !x.event.type.startsWith('webhook.')).map((x) => x.event.id)).toEqual([visible.id]);
  });

  it('when the receiver fails, then attempts follow the schedule with the same webhook-id until one succeeds', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    r.answer = (_, res) => { res.writeHead(500).end('the receiver body, never kept'); };
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    await deliver();
    let row = await delivery(id, event.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500' });
    const wait = Number(row.next_attempt_at) - svc.clock.now();
    expect(wait).toBeGreaterThanOrEqual(4000);
    expect(wait).toBeLessThanOrEqual(6000);
    await deliver(); // not due yet
    expect(r.received.filter((x) => x.event.id === event.id)).toHaveLength(1);
    svc.clock.advance(wait);
    await deliver();
    row = await delivery(id, event.id);
    expect(row).toMatchObject({ attempts: 2 });
    const second = Number(row.next_attempt_at) - svc.clock.now();
    expect(second).toBeGreaterThanOrEqual(240_000);
    expect(second).toBeLessThanOrEqual(360_000);
    r.answer = (_, res) => { res.writeHead(204).end(); };
    svc.clock.advance(second);
    await signIn();
    await deliver();
    expect(await delivery(id, event.id)).toMatchObject({ status: 'succeeded', attempts: 3, last_status: 204 });
    const attempts = r.received.filter((x) => x.event.id === event.id);
    expect(attempts.map((x) => x.headers['webhook-id'])).toEqual([event.id, event.id, event.id]);
    expect(new Set(attempts.map((x) => x.headers['webhook-timestamp'])).size).toBe(3); // a fresh timestamp each time
    const log = await svc.request('GET', `/webhook-endpoints/${id}/attempts`, { headers: auth.dispatch });
    expect(log.body.filter((a: any) => a.event_id === event.id).map((a: any) => a.status_code)).toEqual([204, 500, 500]);
    expect(log.text).not.toContain('never kept');
  });

  it('when the receiver answers 429 with Retry-After, then the next attempt waits at least that long', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    r.answer = (_, res) => { res.writeHead(429, { 'retry-after': '600' }).end(); };
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    await deliver();
    expect(Number((await delivery(id, event.id)).next_attempt_at) - svc.clock.now()).toBe(600_000);
  });

  it('when the receiver answers 410, then the endpoint is disabled and nothing more is sent to it', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    r.answer = (_, res) => { res.writeHead(410).end(); };
    const events = [1, 2].map(() => draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' }));
    await appendEvents(svc.store.db, [events[0]!], svc.clock.now());
    await deliver();
    expect((await svc.request('GET', `/webhook-endpoints/${id}`, { headers: auth.dispatch })).body).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    await appendEvents(svc.store.db, [events[1]!], svc.clock.now());
    await deliver();
    expect(r.received.filter((x) => x.event.type === 'vehicle.online')).toHaveLength(1);
  });

  it('when the receiver answers 410 with a backlog waiting, then only the attempts already under way reach it', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    r.answer = (_, res) => { res.writeHead(410).end(); };
    await appendEvents(svc.store.db, Array.from({ length: 40 }, () => draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })), svc.clock.now());
    await deliver();
    await deliver();
    expect(r.received.filter((x) => x.event.type === 'vehicle.online').length).toBeLessThanOrEqual(svc.webhooks.settings.perEndpointConcurrency);
    const left = await svc.store.db.selectFrom('webhook_deliveries').select(['status', 'lease_owner']).where('endpoint_id', '=', id).execute();
    expect(left.filter((d) => d.status === 'pending' || d.lease_owner !== null)).toEqual([]);
  });

  it('when claimed deliveries wait past their lease and another instance takes them, then this one does not send them', async () => {
    const { receiver: r } = await endpoint(auth.dispatch, ['vehicle.offline']);
    const held: Array<{ end(): void }> = [];
    r.answer = (_, res) => { held.push({ end: () => res.writeHead(204).end() }); };
    await appendEvents(svc.store.db, Array.from({ length: 12 }, () => draft({ type: 'vehicle.offline', vin: ALPHA_VINS[0], companyId: 'alpha' })), svc.clock.now());
    const cap = svc.webhooks.settings.perEndpointConcurrency;
    await svc.dispatcher.runOnce(); // `cap` sent and held by the receiver, the rest waiting here
    await r.waitFor(cap, 'vehicle.offline');
    // Every slot stays busy past the leases; another instance claims what they covered.
    svc.clock.advance(10 * svc.webhooks.settings.timeoutMs);
    const other = new WebhookDispatcher(svc.webhooks, createLogger('silent'));
    await other.runOnce();
    await r.waitFor(2 * cap, 'vehicle.offline');
    for (const answer of held.splice(0, cap)) answer.end(); // this instance's slots free up (the first held)
    await svc.dispatcher.settle();
    // Nothing more from this instance: what waited here is the other's now.
    expect(r.received.filter((x) => x.event.type === 'vehicle.offline')).toHaveLength(2 * cap);
    r.answer = (_, res) => { res.writeHead(204).end(); };
    for (const answer of held.splice(0)) answer.end();
    await other.settle();
    other.close();
  });

  it('when the receiver redirects, then the redirect is not followed and the attempt failed', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    const elsewhere = await receiver();
    r.answer = (_, res) => { res.writeHead(307, { location: elsewhere.url }).end(); };
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    await deliver();
    expect(await delivery(id, event.id)).toMatchObject({ status: 'pending', last_status: 307, last_error: 'HTTP 307' });
    expect(elsewhere.received).toEqual([]);
  });

  it('when the receiver does not answer in time, then the attempt failed as a timeout', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    r.answer = () => { /* never answers */ };
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    const t0 = Date.now();
    await deliver();
    expect(Date.now() - t0).toBeLessThan(svc.webhooks.settings.timeoutMs + 1500);
    expect(await delivery(id, event.id)).toMatchObject({ status: 'pending', last_status: null, last_error: 'timeout' });
  });

  it('when one receiver hangs with a backlog, then it holds only its own slots and another endpoint is still served', async () => {
    const slow = await endpoint(auth.dispatch, ['vehicle.offline']);
    const fast = await endpoint(auth.reports, ['vehicle.online']);
    slow.receiver.answer = () => { /* never answers: each attempt waits for the timeout */ };
    // The slow endpoint's backlog is older than anything the fast one waits for, and larger than a read.
    await appendEvents(svc.store.db, Array.from({ length: 300 }, () => draft({ type: 'vehicle.offline', vin: ALPHA_VINS[0], companyId: 'alpha' })), svc.clock.now());
    svc.clock.advance(1000);
    const events = Array.from({ length: 20 }, () => draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' }));
    await appendEvents(svc.store.db, events, svc.clock.now());
    const t0 = Date.now();
    // Two passes, as the loop runs them back to back when a pass leaves work behind.
    await svc.dispatcher.runOnce();
    await svc.dispatcher.runOnce();
    await fast.receiver.waitFor(events.length, 'vehicle.online');
    expect(Date.now() - t0).toBeLessThan(svc.webhooks.settings.timeoutMs);
    const hanging = await slow.receiver.waitFor(1, 'vehicle.offline');
    expect(hanging.length).toBeLessThanOrEqual(svc.webhooks.settings.perEndpointConcurrency);
    // Removed, its remaining deliveries go with it, even those claimed here and waiting for a
    // slot: the next pass drops them, and only the attempts under way run out.
    await svc.request('DELETE', `/webhook-endpoints/${slow.id}`, { headers: auth.dispatch });
    await svc.dispatcher.runOnce();
    await svc.dispatcher.settle();
    expect(slow.receiver.received.filter((x) => x.event.type === 'vehicle.offline').length).toBe(hanging.length);
  });

  it('when the dispatcher stops, then the streams it held are free at once, at the position its finished attempts reached', async () => {
    const slow = await endpoint(auth.dispatch, ['vehicle.offline']);
    slow.receiver.answer = () => { /* never answers */ };
    await appendEvents(svc.store.db, Array.from({ length: 30 }, () => draft({ type: 'vehicle.offline', vin: ALPHA_VINS[0], companyId: 'alpha' })), svc.clock.now());
    const stream = () => svc.store.db.selectFrom('webhook_endpoints').select(['stream_owner', 'stream_position']).where('id', '=', slow.id).executeTakeFirstOrThrow();
    const before = await stream();
    const stopping = new WebhookDispatcher(svc.webhooks, createLogger('silent'));
    await stopping.runOnce();
    await slow.receiver.waitFor(svc.webhooks.settings.perEndpointConcurrency, 'vehicle.offline');
    expect((await stream()).stream_owner).toMatch(/^dispatcher-/);
    await stopping.stop(50);
    // Nothing finished: another instance starts from the same place, now, not when a lease lapses.
    expect(await stream()).toEqual({ stream_owner: null, stream_position: before.stream_position });
    await svc.request('DELETE', `/webhook-endpoints/${slow.id}`, { headers: auth.dispatch });
    await stopping.settle();
  });

  it('when an enabled endpoint is verified again while events wait to be fanned out, then it still gets them', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    svc.clock.advance(60_000);
    expect((await svc.request('POST', `/webhook-endpoints/${id}/verify`, { headers: auth.dispatch })).body.status).toBe('enabled');
    await deliver();
    expect(r.received.filter((x) => x.event.id === event.id)).toHaveLength(1);
  });

  it('when an endpoint is not verified, then test pings are refused; a rotation needs no body', async () => {
    const r = await receiver();
    r.answer = (_, res) => { res.writeHead(200).end(); };
    const created = await svc.request('POST', '/webhook-endpoints', { headers: auth.dispatch, json: { url: r.url, event_types: ['*'] } });
    await r.waitFor(1, 'webhook.verification');
    const ping = await svc.request('POST', `/webhook-endpoints/${created.body.id}/test`, { headers: auth.dispatch });
    expect(ping.status).toBe(409);
    expect(ping.body).toEqual({ detail: 'The webhook endpoint is not enabled: verify it first.' });
    expect(r.received.filter((x) => x.event.type === 'webhook.ping')).toEqual([]);
    const rotated = await svc.request('POST', `/webhook-endpoints/${created.body.id}/rotate-secret`, { headers: auth.dispatch });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previous_secret_expires).toMatch(/-03:00$/);
    expect((await svc.request('POST', `/webhook-endpoints/${created.body.id}/rotate-secret`, { headers: auth.dispatch, json: [1] })).status).toBe(400);
    // verify twice in a row: the second is too soon.
    expect((await svc.request('POST', `/webhook-endpoints/${created.body.id}/verify`, { headers: auth.dispatch })).status).toBe(200);
    const again = await svc.request('POST', `/webhook-endpoints/${created.body.id}/verify`, { headers: auth.dispatch });
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toMatch(/^[1-5]$/);
  });

  it('when a trip event reaches an endpoint, then it carries only the datapoints the plan and the OEM allow', async () => {
    const { receiver: r } = await endpoint(auth.dispatch, ['trip.ended']);
    const data = { vin: ALPHA_VINS[2], start_date_time: '2026-11-20T09:00:00', end_date_time: '2026-11-20T09:10:00', duration: '00:10:00', avg_speed: 33, max_speed: 61, start_odometer: 1, end_odometer: 6.5, distance: 5.5, avg_fuel_consumption: 11, start_latitude: -23.5, start_longitude: -46.6, end_latitude: -23.6, end_longitude: -46.7 };
    await appendEvents(svc.store.db, [draft({ type: 'trip.ended', vin: ALPHA_VINS[2], companyId: 'alpha', data })], svc.clock.now());
    await deliver();
    const [got] = await r.waitFor(1, 'trip.ended');
    // othermotors gives vin and speed only.
    expect(got!.event.data).toEqual({ vin: ALPHA_VINS[2], start_date_time: data.start_date_time, end_date_time: data.end_date_time, duration: data.duration, avg_speed: 33, max_speed: 61 });
  });

  it('when an endpoint fails for days without a success, then it is disabled; a burst of failures with a success between does not', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    r.answer = (_, res) => { res.writeHead(503).end(); };
    const hours = 3_600_000;
    for (let i = 0; i < 3; i += 1) {
      await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], svc.clock.now());
      await deliver();
      svc.clock.advance(50 * hours);
    }
    await signIn();
    expect((await svc.request('GET', `/webhook-endpoints/${id}`, { headers: auth.dispatch })).body.status).toBe('enabled'); // 100 h so far
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], svc.clock.now());
    await deliver(); // 150 h after the first failure
    await signIn();
    expect((await svc.request('GET', `/webhook-endpoints/${id}`, { headers: auth.dispatch })).body).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
  });

  it('when the secret is rotated, then both sign until the old one expires, then only the new one', async () => {
    const { receiver: r, id, secret: old } = await endpoint(auth.dispatch);
    const rotated = await svc.request('POST', `/webhook-endpoints/${id}/rotate-secret`, { headers: auth.dispatch, json: { previous_secret_expires_in: 3600 } });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], svc.clock.now());
    await deliver();
    const during = r.received.at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(during, old)).toEqual({ ok: true });
    expect(verified(during, fresh)).toEqual({ ok: true });
    svc.clock.advance(3_600_001);
    await signIn();
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], svc.clock.now());
    await deliver();
    const after = r.received.at(-1)!;
    expect(verified(after, fresh)).toEqual({ ok: true });
    expect(verified(after, old)).toEqual({ ok: false, reason: 'bad-signature' });
    for (const bad of [-1, 604_801, 'soon', 1.5]) {
      const res = await svc.request('POST', `/webhook-endpoints/${id}/rotate-secret`, { headers: auth.dispatch, json: { previous_secret_expires_in: bad } });
      expect(res.body).toEqual({ detail: 'previous_secret_expires_in must be an integer number of seconds from 0 to 604800.' });
    }
  });

  it('when the instance holding a stream dies, then its lease lapses and the event is sent with the same webhook-id', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    // A dispatcher that took the endpoint's stream and died before sending.
    await svc.store.db.updateTable('webhook_endpoints').set({ stream_owner: 'dead-instance:1', stream_lease_until: svc.clock.now() + 45_000 }).where('id', '=', id).execute();
    await deliver();
    expect(r.received.filter((x) => x.event.id === event.id)).toEqual([]);
    svc.clock.advance(45_001);
    await deliver();
    expect(r.received.filter((x) => x.event.id === event.id).map((x) => x.headers['webhook-id'])).toEqual([event.id]);
    // A success leaves no delivery row: the attempt log says it was received.
    const log = await svc.request('GET', `/webhook-endpoints/${id}/attempts`, { headers: auth.dispatch });
    expect(log.body.filter((a: any) => a.event_id === event.id).map((a: any) => a.status_code)).toEqual([200]);
  });

  it('when an outcome write fails, then the stream starts again from its position and the failed event is not skipped', async () => {
    const { receiver: r } = await endpoint(auth.dispatch, ['vehicle.offline']);
    const [held, failing] = [1, 2].map(() => draft({ type: 'vehicle.offline', vin: ALPHA_VINS[0], companyId: 'alpha' }));
    const waiting: Array<() => void> = [];
    r.answer = (got, res) => {
      if (got.event.id === held!.id) waiting.push(() => res.writeHead(204).end());
      else res.writeHead(500).end();
    };
    await appendEvents(svc.store.db, [held!, failing!], svc.clock.now());
    // The attempt log cannot be written while the first event is still under way: the failed
    // one's outcome (its retry row, no move of the position yet) is lost with that write.
    await sql`alter table webhook_attempts rename to webhook_attempts_away`.execute(svc.store.db);
    try {
      await svc.dispatcher.runOnce();
      await r.waitFor(2, 'vehicle.offline');
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await sql`alter table webhook_attempts_away rename to webhook_attempts`.execute(svc.store.db);
    }
    r.answer = (_, res) => { res.writeHead(204).end(); };
    for (const answer of waiting.splice(0)) answer();
    await svc.dispatcher.settle();
    await deliver();
    await deliver();
    // Sent again (at least once), not left behind the position with no retry.
    expect(r.received.filter((x) => x.event.id === failing!.id).length).toBeGreaterThanOrEqual(2);
  });

  it('when two dispatchers run on one database, then every event reaches the endpoint, and duplicates are counted', async () => {
    const { receiver: r } = await endpoint(auth.dispatch);
    const other = new WebhookDispatcher(svc.webhooks, createLogger('silent'));
    const events = Array.from({ length: 2000 }, () => draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' }));
    await appendEvents(svc.store.db, events, svc.clock.now());
    // Both pass at once, as two processes' loops do; each refills its slots as attempts end.
    for (let i = 0; i < 5; i += 1) {
      await Promise.all([svc.dispatcher.runOnce(), other.runOnce()]);
      await Promise.all([svc.dispatcher.settle(), other.settle()]);
    }
    const got = r.received.filter((x) => x.event.type === 'vehicle.online').map((x) => x.event.id);
    expect(new Set(got)).toEqual(new Set(events.map((e) => e.id)));
    const duplicates = got.length - new Set(got).size;
    console.log(`two dispatchers, ${kind}: ${duplicates} duplicates in ${events.length} events (${Math.round((duplicates / events.length) * 10_000)} per 10,000)`);
  });

  it('when a pass finds nothing new, then it is one statement; a free stream, a new event and a retry falling due each still get a whole pass', async () => {
    const counted = countedStore(svc.store);
    // The default deadline: a stream's lease of 35 s, renewed once 8.75 s of it have gone.
    const settings = { ...svc.webhooks.settings, timeoutMs: 15_000 };
    const watcher = new WebhookDispatcher({ ...svc.webhooks, settings, store: counted.store }, createLogger('silent'));
    const statementsOfPass = async () => {
      counted.reset();
      await watcher.runOnce();
      await watcher.settle();
      return counted.statements.length;
    };
    const receivedTimes = (r: WebhookReceiver, id: string) => r.received.filter((x) => x.event.id === id).length;
    try {
      await statementsOfPass(); // the first learns how far the outbox is numbered
      expect(await statementsOfPass()).toBe(1);
      expect(counted.statements).toEqual(['SelectQueryNode']);
      const { receiver: r } = await endpoint(auth.dispatch, ['vehicle.online']);
      expect(await statementsOfPass()).toBeGreaterThan(1); // its stream is free: taken
      expect(await statementsOfPass()).toBe(1);
      const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
      await appendEvents(svc.store.db, [event], svc.clock.now());
      expect(await statementsOfPass()).toBeGreaterThan(1);
      expect(receivedTimes(r, event.id)).toBe(1);
      expect(await statementsOfPass()).toBe(1);
      // A failed first attempt is retried 4-6 s later (the schedule's 5 s, jittered).
      r.answer = (_, res) => { res.writeHead(500).end(); };
      const failing = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
      await appendEvents(svc.store.db, [failing], svc.clock.now());
      expect(await statementsOfPass()).toBeGreaterThan(1);
      expect(receivedTimes(r, failing.id)).toBe(1);
      r.answer = (_, res) => { res.writeHead(204).end(); };
      svc.clock.advance(3000);
      expect(await statementsOfPass()).toBe(1);
      // Due now, and the stream's lease not yet due for renewal: only the retry makes this pass whole.
      svc.clock.advance(3500);
      expect(await statementsOfPass()).toBeGreaterThan(1);
      expect(receivedTimes(r, failing.id)).toBe(2);
      expect(await statementsOfPass()).toBe(1);
      svc.clock.advance(2500); // 9 s since the stream was taken: renewed in a whole pass
      expect(await statementsOfPass()).toBeGreaterThan(1);
      expect(counted.statements).toContain('UpdateQueryNode');
      expect(await statementsOfPass()).toBe(1);
    } finally {
      await watcher.stop(1000);
    }
  });

  it('when a stream is leased, then the look before a pass finds it free only to its owner taking it back, or to anyone once the lease lapsed', async () => {
    const { id } = await endpoint(auth.dispatch);
    const now = svc.clock.now();
    await svc.store.db.updateTable('webhook_endpoints').set({ stream_owner: 'dispatcher-a:3', stream_lease_until: now + 30_000 }).where('id', '=', id).execute();
    const freeStream = async (owner: string, reclaim: string[], at = now) => (await dispatcherNews(svc.store.db, at, { owner, reclaim })).freeStream;
    expect(await freeStream('dispatcher-a', [])).toBe(false);
    expect(await freeStream('dispatcher-b', [id])).toBe(false); // let go of by b, since taken by a: no reason for a whole pass
    expect(await freeStream('dispatcher-a', [id])).toBe(true);
    expect(await freeStream('dispatcher-b', [], now + 30_001)).toBe(true);
  });

  it('when attempts end, then /metrics counts them by result and shows what waits', async () => {
    const { receiver: r } = await endpoint(auth.dispatch);
    const registry = new Registry();
    const observed = new WebhookDispatcher(svc.webhooks, createLogger('silent'), new WebhookMetrics(registry, svc.store, () => svc.clock.now()));
    r.answer = (_, res) => { res.writeHead(500).end(); };
    await appendEvents(svc.store.db, [draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' })], svc.clock.now());
    await observed.runOnce();
    await observed.settle();
    const text = await registry.metrics();
    expect(text).toMatch(/^webhook_attempts_total\{result="http_error"\} 1$/m);
    expect(text).toMatch(/^webhook_deliveries_pending 1$/m);
    // Its one event has had its first attempt: the stream is not behind.
    expect(text).toMatch(/^webhook_stream_lag_events 0$/m);
    expect(text).toMatch(/^webhook_endpoints\{status="enabled"\} 1$/m);
    expect(text).toMatch(/^webhook_attempt_seconds_count 1$/m);
  });

  it('when a retry has been due a while, then /metrics says how long the oldest due has waited, and 0 once none is due', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    const registry = new Registry();
    new WebhookMetrics(registry, svc.store, () => svc.clock.now());
    const oldestDue = async () => Number(/^webhook_oldest_due_seconds (\S+)$/m.exec(await registry.metrics())?.[1]);
    r.answer = (_, res) => { res.writeHead(500).end(); };
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    await deliver();
    expect(await oldestDue()).toBe(0); // retrying later: not due yet
    svc.clock.advance(Number((await delivery(id, event.id)).next_attempt_at) - svc.clock.now() + 42_000);
    expect(await oldestDue()).toBe(42);
    r.answer = answerChallenge;
    await deliver();
    expect(await delivery(id, event.id)).toMatchObject({ status: 'succeeded' });
    expect(await oldestDue()).toBe(0);
  });

  it('when an endpoint missed events, then recover queues them again, not one it received at the first attempt, and a ping answers the receiver status only', async () => {
    const { receiver: r, id } = await endpoint(auth.dispatch);
    // Received at its first attempt: only the attempt log knows (no delivery row).
    const got = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [got], svc.clock.now());
    await deliver();
    expect(r.received.filter((x) => x.event.id === got.id)).toHaveLength(1);
    r.answer = (_, res) => { res.writeHead(500).end('secret body of the receiver'); };
    const event = draft({ type: 'vehicle.online', vin: ALPHA_VINS[0], companyId: 'alpha' });
    await appendEvents(svc.store.db, [event], svc.clock.now());
    await deliver();
    r.answer = answerChallenge;
    const since = new Date(svc.clock.now() - 60_000).toISOString().slice(0, 19) + 'Z';
    const recovered = await svc.request('POST', `/webhook-endpoints/${id}/recover`, { headers: auth.dispatch, json: { since } });
    expect(recovered.status).toBe(202);
    expect(recovered.body.queued).toBeGreaterThanOrEqual(1);
    await deliver();
    expect(await delivery(id, event.id)).toMatchObject({ status: 'succeeded' });
    expect(r.received.filter((x) => x.event.id === got.id)).toHaveLength(1);
    const ping = await svc.request('POST', `/webhook-endpoints/${id}/test`, { headers: auth.dispatch });
    expect(ping.body).toEqual({ event_id: expect.any(String), status_code: 200, error: null, duration_ms: expect.any(Number) });
    expect(r.received.at(-1)!.event.type).toBe('webhook.ping');
    const log = await svc.request('GET', `/webhook-endpoints/${id}/attempts`, { headers: auth.dispatch });
    expect(log.text).not.toContain('secret body');
    expect((await svc.request('POST', `/webhook-endpoints/${id}/recover`, { headers: auth.dispatch, json: { since: 'yesterday' } })).status).toBe(400);
    // Another application's endpoint is not found.
    expect((await svc.request('GET', `/webhook-endpoints/${id}`, { headers: auth.reports })).status).toBe(404);
    expect((await svc.request('DELETE', `/webhook-endpoints/${id}`, { headers: auth.beta })).status).toBe(404);
    expect((await svc.request('DELETE', `/webhook-endpoints/${id}`, { headers: auth.dispatch })).status).toBe(204);
    expect((await svc.request('GET', `/webhook-endpoints/${id}`, { headers: auth.dispatch })).status).toBe(404);
  });
});
