/**
 * The dispatcher with webhooks sent from a thread that holds posts per endpoint, as `serve` wires
 * it (ThreadedWebhookSender, two rounds of an endpoint's slots held there): a backlog arrives
 * once each, signed, never more than the endpoint's concurrency on the wire; a 410 stops what
 * the thread holds; a stop gives back what the thread held, and another dispatcher sends it with
 * the same webhook-id. Real receivers on loopback, both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf, type EventDraft } from '../../src/domain/events.js';
import { verifyWebhook } from '../../src/domain/webhook-signature.js';
import { createLogger } from '../../src/logger.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { answerChallenge, startWebhookReceiver, type Answer, type WebhookReceiver } from '../support/webhook-receiver.js';
import { scaled } from '../support/timeouts.js';

const CAP = 4;

describe.each(DATABASE_KINDS)('threaded webhook delivery on %s', (kind) => {
  let svc: TestService;
  let auth: Record<string, string>;
  const receivers: WebhookReceiver[] = [];
  let label = 0;
  const events = (n: number, type: EventDraft['type'] = 'vehicle.online'): EventDraft[] => Array.from({ length: n }, () => {
    label += 1;
    return { id: eventIdOf('threaded-test', kind, label), type, vin: ALPHA_VINS[0]!, companyId: 'alpha', applicationId: null, occurredAt: T0 + label, data: { vin: ALPHA_VINS[0], n: label } };
  });
  /** A receiver counting the requests it has open at once, answering through `answer` after `delayMs`. */
  const receiver = async (answer: Answer, delayMs: number) => {
    const stats = { open: 0, most: 0 };
    const r = await startWebhookReceiver((received, res) => {
      if (received.event.type === 'webhook.verification') return answerChallenge(received, res);
      stats.open += 1;
      stats.most = Math.max(stats.most, stats.open);
      setTimeout(() => {
        stats.open -= 1;
        void answer(received, res);
      }, delayMs);
    });
    receivers.push(r);
    return { r, stats };
  };
  const endpoint = async (r: WebhookReceiver, types: string[]) => {
    const res = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url: r.url, event_types: types } });
    expect(res.status, res.text).toBe(201);
    await until(async () => (await svc.request('GET', `/webhook-endpoints/${res.body.id}`, { headers: auth })).body.status === 'enabled');
    return { id: res.body.id as string, secret: res.body.secret as string };
  };
  const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
    const deadline = Date.now() + scaled(timeoutMs);
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const ofType = (r: WebhookReceiver, type: string) => r.received.filter((x) => x.event.type === type);

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { webhooks: { threaded: { queuedPerLane: 2 * CAP }, settings: { perEndpointConcurrency: CAP } } });
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    await svc.dispatcher.runOnce(); // past whatever the fixture wrote
    await svc.dispatcher.settle();
  });
  afterAll(async () => {
    await svc?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('delivers a backlog once each, signed, with the endpoint\'s concurrency on the wire and no more, and moves its stream past it', async () => {
    const { r, stats } = await receiver((_, res) => { res.writeHead(204).end(); }, 3);
    const { id, secret } = await endpoint(r, ['vehicle.online']);
    const drafts = events(300);
    await appendEvents(svc.store.db, drafts, svc.clock.now());
    await until(async () => {
      await svc.dispatcher.runOnce();
      return ofType(r, 'vehicle.online').length >= drafts.length;
    });
    await svc.dispatcher.settle();
    const got = ofType(r, 'vehicle.online');
    expect(got.map((x) => x.event.id).sort()).toEqual(drafts.map((d) => d.id).sort());
    for (const x of got) {
      expect(verifyWebhook(secret, { id: String(x.headers['webhook-id']), timestamp: String(x.headers['webhook-timestamp']), signature: String(x.headers['webhook-signature']) }, x.body, Number(x.headers['webhook-timestamp']))).toEqual({ ok: true });
    }
    expect(stats.most).toBeLessThanOrEqual(CAP);
    expect(stats.most).toBeGreaterThan(1);
    const attempts = await svc.store.db.selectFrom('webhook_attempts').select(['event_id', 'status_code', 'duration_ms']).where('endpoint_id', '=', id).where('trigger', '=', 'auto').execute();
    expect(attempts).toHaveLength(drafts.length);
    expect(attempts.every((a) => a.status_code === 204 && Number(a.duration_ms) < 2000)).toBe(true);
    const last = await svc.store.db.selectFrom('events').select('position').where('id', '=', drafts.at(-1)!.id).executeTakeFirstOrThrow();
    const row = await svc.store.db.selectFrom('webhook_endpoints').select('stream_position').where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.stream_position)).toBeGreaterThanOrEqual(Number(last.position));
  });

  it('when the receiver answers 410 with a backlog held in the thread, then only the attempts on the wire reach it', async () => {
    const { r } = await receiver((_, res) => { res.writeHead(410).end(); }, 50);
    const { id } = await endpoint(r, ['vehicle.offline']);
    await appendEvents(svc.store.db, events(40, 'vehicle.offline'), svc.clock.now());
    await svc.dispatcher.runOnce();
    await svc.dispatcher.settle();
    await svc.dispatcher.runOnce();
    await svc.dispatcher.settle();
    expect(ofType(r, 'vehicle.offline').length).toBeLessThanOrEqual(CAP);
    expect((await svc.request('GET', `/webhook-endpoints/${id}`, { headers: auth })).body).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    const attempts = await svc.store.db.selectFrom('webhook_attempts').select('error').where('endpoint_id', '=', id).where('trigger', '=', 'auto').execute();
    expect(attempts.length).toBe(ofType(r, 'vehicle.offline').length); // what was never sent left no attempt
    const left = await svc.store.db.selectFrom('webhook_deliveries').select(['status', 'lease_owner']).where('endpoint_id', '=', id).execute();
    expect(left.filter((d) => d.status === 'pending' || d.lease_owner !== null)).toEqual([]);
  });

  it('when slow receivers fill their lanes, then a fast endpoint still gets the wire: held attempts have their own cap', async () => {
    // 64 attempts in all, 4 on the wire per endpoint and 8 held: 6 endpoints that never answer
    // hold 24 on the wire and 48 held. Were held ones counted against the 64, the fast one would
    // get nothing until the slow ones timed out.
    const silent: Array<() => void> = [];
    const slow = await Promise.all(Array.from({ length: 6 }, () => receiver((_, res) => { silent.push(() => res.writeHead(204).end()); }, 0)));
    for (const { r } of slow) await endpoint(r, ['trip.started']);
    const { r: fast } = await receiver((_, res) => { res.writeHead(204).end(); }, 0);
    await endpoint(fast, ['trip.started']);
    const drafts = events(40, 'trip.started');
    await appendEvents(svc.store.db, drafts, svc.clock.now());
    try {
      await until(async () => {
        await svc.dispatcher.runOnce();
        return new Set(ofType(fast, 'trip.started').map((x) => x.event.id)).size >= drafts.length;
      });
      // Each slow one has its 4 on the wire and nothing more sent. On a loaded machine the fast
      // endpoint can be done before the last of those 4 has reached its receiver: wait for them.
      await until(() => slow.every(({ r }) => ofType(r, 'trip.started').length >= CAP));
      await svc.dispatcher.runOnce();
      for (const { r } of slow) expect(ofType(r, 'trip.started')).toHaveLength(CAP);
    } finally {
      for (const answer of silent.splice(0)) answer();
    }
    // Answered from now on: they get the rest.
    const answerAll = () => { for (const answer of silent.splice(0)) answer(); };
    await until(async () => {
      answerAll();
      await svc.dispatcher.runOnce();
      return slow.every(({ r }) => new Set(ofType(r, 'trip.started').map((x) => x.event.id)).size >= drafts.length);
    }, 20_000);
    answerAll();
  });

  it('when the dispatcher stops with posts held in the thread, then they are not sent, and the next dispatcher sends them with the same webhook-id', async () => {
    const { r } = await receiver((_, res) => { res.writeHead(204).end(); }, 300);
    const { id } = await endpoint(r, ['vehicle.charging']);
    const drafts = events(30, 'vehicle.charging');
    await appendEvents(svc.store.db, drafts, svc.clock.now());
    await svc.dispatcher.runOnce();
    await until(() => ofType(r, 'vehicle.charging').length >= CAP);
    await svc.dispatcher.stop(5_000); // the four on the wire end; those held are given back
    const before = ofType(r, 'vehicle.charging').map((x) => x.event.id);
    expect(before).toHaveLength(CAP);
    const next = new WebhookDispatcher(svc.webhooks, createLogger('silent'));
    try {
      await until(async () => {
        await next.runOnce();
        return new Set(ofType(r, 'vehicle.charging').map((x) => x.event.id)).size >= drafts.length;
      }, 20_000);
      await next.settle();
    } finally {
      await next.stop(5_000);
    }
    const ids = ofType(r, 'vehicle.charging').map((x) => x.event.id);
    expect(new Set(ids)).toEqual(new Set(drafts.map((d) => d.id)));
    // The four answered before the stop were written, so none of them came again.
    expect(ids).toHaveLength(drafts.length);
    const row = await svc.store.db.selectFrom('webhook_endpoints').select('stream_position').where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.stream_position)).toBeGreaterThan(0);
  });
});
