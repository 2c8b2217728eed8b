/**
 * Webhooks of a disabled application: the real service, real receivers on loopback, and the
 * operator's `telematics admin app disable|enable` run as child processes against its database
 * (the built CLI), so the service learns of the change as it would in production.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf } from '../../src/domain/events.js';
import { createApplication } from '../../src/registry/manage-applications.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { BIN, serveEnv } from '../support/service-process.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { until } from '../support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { scaled } from '../support/timeouts.js';

const run = promisify(execFile);

describe.each(DATABASE_KINDS)('webhooks of a disabled application on %s', (kind) => {
  let svc: TestService;
  const receivers: WebhookReceiver[] = [];
  let label = 0;
  const admin = (...args: string[]) => run(process.execPath, [BIN, 'admin', 'app', ...args, '--database', svc.databaseUrl], { env: serveEnv(kind) });
  const appendOnline = async () => {
    label += 1;
    const event = { id: eventIdOf('app-disabled-test', kind, label), type: 'vehicle.online' as const, vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: null, occurredAt: T0 + label * 1000, data: { vin: ALPHA_VINS[0] } };
    await appendEvents(svc.store.db, [event], svc.clock.now());
    return event.id;
  };
  /** Fans out and sends what is due now, and waits for the attempts to end. */
  const deliver = async () => {
    await svc.dispatcher.runOnce();
    await svc.dispatcher.settle();
  };
  /** A verified endpoint for `token`'s application, delivering every event to a new receiver. */
  const endpoint = async (token: string) => {
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const headers = { authorization: `Bearer ${token}` };
    const res = await svc.request('POST', '/webhook-endpoints', { headers, json: { url: receiver.url, event_types: ['*'] } });
    expect(res.status, res.text).toBe(201);
    await receiver.waitFor(1, 'webhook.verification');
    await until('endpoint enabled', async () => (await svc.request('GET', `/webhook-endpoints/${res.body.id}`, { headers })).body.status === 'enabled', 5000, 10);
    return receiver;
  };
  const idsAt = (receiver: WebhookReceiver, from: number) => receiver.received.slice(from).filter((r) => r.event.type === 'vehicle.online').map((r) => r.event.id);

  beforeAll(async () => {
    svc = await startTestService(kind);
    await deliver(); // past whatever the fixture wrote
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await svc?.close();
  });

  it('when `admin app disable` runs, then its endpoints receive nothing more, neither new events nor retries falling due; enabled again, they go on from where they stopped', async () => {
    const issued = await createApplication(svc.store.db, svc.keyring, { companyId: 'alpha', name: 'hooks-disabled' }, svc.clock.now());
    const token = await svc.token(issued.client_id, issued.client_secret!);
    const hooks = await endpoint(token);
    const others = await endpoint(await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client));

    const first = await appendOnline();
    await deliver();
    expect(idsAt(hooks, 0)).toEqual([first]);
    // One that fails now and is due again in about 5 s.
    hooks.answer = (_, res) => { res.writeHead(500).end(); };
    const failed = await appendOnline();
    await deliver();
    expect(idsAt(hooks, 0)).toEqual([first, failed]);
    hooks.answer = (_, res) => { res.writeHead(204).end(); };

    await admin('disable', '--client-id', issued.client_id);
    // The service has seen the change once the token is refused (PostgreSQL tells it by NOTIFY).
    await until('token refused', async () => (await svc.request('GET', '/vehicle', { headers: { authorization: `Bearer ${token}` } })).status === 401, 5000, 10);
    const received = hooks.received.length;
    const whileDisabled = await appendOnline();
    svc.clock.advance(10_000); // the failed one falls due
    for (let i = 0; i < 3; i += 1) await deliver();
    expect(idsAt(hooks, received)).toEqual([]);
    // Other applications' endpoints are not held up.
    expect(idsAt(others, 0)).toEqual([first, failed, whileDisabled]);

    await admin('enable', '--client-id', issued.client_id);
    await until('delivered after enable', async () => {
      await deliver();
      return idsAt(hooks, received).length >= 2;
    }, 5000, 10);
    expect(idsAt(hooks, received).sort()).toEqual([failed, whileDisabled].sort());
  }, scaled(90_000)); // two CLI processes, each seconds to start on a loaded machine
});
