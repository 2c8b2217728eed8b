/**
 * `telematics admin webhook list|disable|replay` as an operator runs them (the built CLI in a
 * child process) against the database of a running service.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf } from '../../src/domain/events.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { BIN } from '../support/service-process.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const run = promisify(execFile);

describe.each(DATABASE_KINDS)('admin webhook on %s', (kind) => {
  let svc: TestService;
  let receiver: WebhookReceiver;
  let id: string;
  const cli = async (...args: string[]) => (await run(process.execPath, [BIN, 'admin', 'webhook', ...args, '--database', svc.databaseUrl])).stdout;

  beforeAll(async () => {
    svc = await startTestService(kind);
    receiver = await startWebhookReceiver();
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const res = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url: receiver.url, event_types: ['*'] } });
    id = res.body.id;
    await receiver.waitFor(1, 'webhook.verification');
    for (let i = 0; i < 100 && (await svc.request('GET', `/webhook-endpoints/${id}`, { headers: auth })).body.status !== 'enabled'; i += 1) await new Promise((r) => setTimeout(r, 10));
  });
  afterAll(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('when the operator lists, replays and disables, then the endpoint follows, and its secret is never printed', async () => {
    const listed = JSON.parse(await cli('list', '--json'));
    expect(listed).toEqual([{ id, company: 'alpha', application: expect.any(String), url: receiver.url, status: 'enabled', disabled_reason: null, pending: 0 }]);
    expect(await cli('list')).not.toContain('whsec_');

    const event = { id: eventIdOf('cli-test', kind), type: 'vehicle.online' as const, vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: null, occurredAt: svc.clock.now(), data: { vin: ALPHA_VINS[0] } };
    await appendEvents(svc.store.db, [event], Date.now());
    await svc.dispatcher.runOnce();
    await svc.dispatcher.settle();
    expect(receiver.received.filter((r) => r.event.id === event.id)).toHaveLength(1);
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + 'Z';
    expect(JSON.parse(await cli('replay', '--id', id, '--since', since, '--json'))).toEqual({ id, queued: 0 }); // received already

    expect(await cli('disable', '--id', id)).toContain(`webhook endpoint ${id} disabled`);
    expect(JSON.parse(await cli('list', '--json'))[0]).toMatchObject({ status: 'disabled', disabled_reason: 'operator' });
    const refused = await cli('replay', '--id', id, '--since', since).then(() => undefined, (e: { stderr: string }) => e.stderr);
    expect(refused).toMatch(/is disabled: its application must verify it first/);
    // The application cannot lift the operator's disable; the operator can, and it verifies again.
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const blocked = await svc.request('POST', `/webhook-endpoints/${id}/verify`, { headers: auth });
    expect(blocked.body).toEqual({ detail: 'The webhook endpoint was disabled by the operator: ask them to enable it.' });
    expect(await cli('enable', '--id', id)).toContain('waits for its application to verify it');
    expect((await svc.request('POST', `/webhook-endpoints/${id}/verify`, { headers: auth })).body).toMatchObject({ status: 'enabled' });
    const unknown = await cli('disable', '--id', 'nope').then(() => undefined, (e: { stderr: string }) => e.stderr);
    expect(unknown).toMatch(/unknown webhook endpoint "nope"/);
  });
});
