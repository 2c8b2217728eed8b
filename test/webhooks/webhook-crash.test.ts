/**
 * `telematics serve` as a child process, killed with SIGKILL while a command's outcome is being
 * delivered (the receiver has it and has not answered), then started again: the delivery is sent
 * again once the dead process's lease lapses, with the same webhook-id. The receiver and the
 * automaker cloud live in the test process, so they outlive the service.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { eventIdOf } from '../../src/domain/events.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { SimulatedVehicle } from '../../src/sim/simulated-vehicle.js';
import { openStore } from '../../src/store/open-store.js';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { PROCESS_APP, prepareProcessFleet, processToken, processVins, type ProcessFleet } from '../support/process-fleet.js';
import { startServiceProcess } from '../support/service-process.js';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { scaled } from '../support/timeouts.js';
import { until } from '../support/until.js';

const [VIN] = processVins('9BWHKDLV', 1) as [string];

describe.each(DATABASE_KINDS)('a webhook delivery across a crash on %s', (kind) => {
  let fleet: ProcessFleet;
  let cloud: SimulatedOemCloud;
  let receiver: WebhookReceiver;
  let child: ChildProcess | undefined;
  const serve = () => startServiceProcess(['--no-sim', '--database', fleet.database.url], {
    ...fleet.env, TELEMATICS_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', TELEMATICS_WEBHOOK_TIMEOUT: '2s',
  });

  beforeAll(async () => {
    const vehicle = new SimulatedVehicle({ vin: VIN, powertrain: 'combustion', profile: 'normal', tankLiters: 50 }, 1);
    cloud = new SimulatedOemCloud((vin) => (vin === VIN ? vehicle : undefined), systemClock, { latencyMs: [200, 400], seed: 1, apiKey: null });
    await cloud.listen();
    fleet = await prepareProcessFleet(kind, cloud.url, [VIN]);
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await receiver?.close();
    await cloud?.close();
    await fleet?.database.drop();
  });

  it('when the service is killed while the outcome is being delivered, then after a restart it is delivered with the same webhook-id', async () => {
    let served = await serve();
    child = served.child;
    const auth = { authorization: `Bearer ${await processToken(served.url)}`, 'content-type': 'application/json' };
    const created = await fetch(`${served.url}/webhook-endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ url: receiver.url, event_types: ['command.succeeded', 'command.failed'] }) });
    const endpoint = (await created.json()) as { id: string };
    await receiver.waitFor(1, 'webhook.verification');
    // From now on the receiver takes deliveries and does not answer: the attempt is under way.
    receiver.answer = (received, res) => { if (received.event.type === 'webhook.verification') answerChallenge(received, res); };
    const sent = await fetch(`${served.url}/vehicle-command`, {
      method: 'POST', headers: { ...auth, 'x-signature': sign(PROCESS_APP.sign, VIN, 'diagnostics') }, body: JSON.stringify({ vin: VIN, command: 'diagnostics' }),
    });
    const command = (await sent.json()) as { id: string; status: string };
    expect(command.status).toBe('Pending');
    const [first] = await receiver.waitFor(1, 'command.succeeded', 20_000);
    const eventId = eventIdOf('command.succeeded', command.id);
    expect(first!.headers['webhook-id']).toBe(eventId);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    receiver.answer = answerChallenge;
    served = await serve();
    child = served.child;
    const [, second] = await receiver.waitFor(2, 'command.succeeded', 20_000);
    expect(second!.headers['webhook-id']).toBe(eventId);
    expect(second!.body).toBe(first!.body);
    const store = openStore(fleet.database.url, { poolSize: 1 });
    try {
      // Received once it answered 200: a first attempt that succeeds is kept in the attempt log only.
      const received = () => store.db.selectFrom('webhook_attempts').select('status_code').where('endpoint_id', '=', endpoint.id).where('event_id', '=', eventId)
        .where('status_code', '=', 200).execute();
      await until('the delivery recorded as answered 200', async () => (await received()).length > 0, 5000);
      expect(await received()).toHaveLength(1);
      expect(await store.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute()).toEqual([]);
    } finally {
      await store.close();
    }
    const exitedAgain = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exitedAgain;
  }, scaled(60_000));
});
