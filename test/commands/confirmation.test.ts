import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import type { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';

const [VIN, OTHER_VIN] = [ALPHA_VINS[0], ALPHA_VINS[1]];

describe.each(DATABASE_KINDS)('two-step confirmation (D5) on %s', (kind) => {
  let svc: TestService;
  let cloud: SimulatedOemCloud;
  let alpha: CommandClient;
  let reports: CommandClient;

  beforeAll(async () => {
    svc = await startTestService(kind);
    ({ cloud } = await svc.useSimulatedCloud());
    alpha = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    reports = commandClient(svc, await svc.token('alpha-reports', SECRETS.alphaReports.client), SECRETS.alphaReports.sign);
  });
  afterAll(async () => { await svc?.close(); });

  const step1 = async (client: CommandClient = alpha, vin: string = VIN, command = 'disable_ignition') => {
    const res = await client.send({ vin, command });
    expect(res.status).toBe(200);
    return res.body as { id: string; code: string; status: string; message: string };
  };

  it('when an ignition command is sent without a code, then Confirmation with a 6-digit code and a Portuguese message, and nothing reaches the automaker', async () => {
    const before = cloud.received.length;
    const first = await step1();
    expect(first).toEqual({ id: expect.any(String), vin: VIN, command: 'disable_ignition', status: 'Confirmation', code: expect.stringMatching(/^\d{6}$/), message: expect.stringMatching(/ignição/) });
    expect(cloud.received.length).toBe(before);
    expect((await alpha.status(first.id)).body).toMatchObject({ status: 'Confirmation', detail: {} });
    const raw = await svc.store.db.selectFrom('commands').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(raw)).not.toContain(`"${first.code}"`);
  });

  it('when the code comes back, then the same record becomes Pending and is initiated once; reusing the code is 409', async () => {
    const first = await step1();
    const second = await alpha.send({ vin: VIN, command: 'disable_ignition', code: first.code });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ id: first.id, vin: VIN, command: 'disable_ignition', status: 'Pending', created: expect.any(String) });
    expect(cloud.received.filter((r) => r.id === first.id)).toHaveLength(1);
    const again = await alpha.send({ vin: VIN, command: 'disable_ignition', code: first.code });
    expect(again).toMatchObject({ status: 409, body: { detail: 'Confirmation already used' } });
  });

  it('when the code is wrong, for another vehicle, another command, or another application, then 400 Confirmation invalid', async () => {
    const first = await step1();
    const wrong = String((Number(first.code) + 1) % 1_000_000).padStart(6, '0');
    expect(await alpha.send({ vin: VIN, command: 'disable_ignition', code: wrong })).toMatchObject({ status: 400, body: { detail: 'Confirmation invalid' } });
    expect(await alpha.send({ vin: OTHER_VIN, command: 'disable_ignition', code: first.code })).toMatchObject({ status: 400, body: { detail: 'Confirmation invalid' } });
    expect(await alpha.send({ vin: VIN, command: 'enable_ignition', code: first.code })).toMatchObject({ status: 400, body: { detail: 'Confirmation invalid' } });
    expect(await reports.send({ vin: VIN, command: 'disable_ignition', code: first.code })).toMatchObject({ status: 400, body: { detail: 'Confirmation invalid' } });
    // Still valid for its own application, vehicle and command.
    expect((await alpha.send({ vin: VIN, command: 'disable_ignition', code: first.code })).status).toBe(200);
  });

  it.each([[{ toString: 1 }], [[{ toString: 1 }]], [123456], [null], [true]])('when the code is not a string (%j), then 400 Confirmation invalid, never a 5xx', async (code) => {
    await step1();
    const res = await alpha.send({ vin: VIN, command: 'disable_ignition', code });
    // null means "no code": a new confirmation starts.
    if (code === null) expect(res.body.status).toBe('Confirmation');
    else expect(res).toMatchObject({ status: 400, body: { detail: 'Confirmation invalid' } });
  });

  it('when the code is older than 5 minutes, then it is invalid', async () => {
    const first = await step1(alpha, OTHER_VIN, 'enable_ignition');
    const t = svc.clock.t;
    svc.clock.advance(5 * 60_000 + 1000);
    try {
      expect(await alpha.send({ vin: OTHER_VIN, command: 'enable_ignition', code: first.code })).toMatchObject({ status: 400, body: { detail: 'Confirmation invalid' } });
    } finally {
      svc.clock.t = t;
    }
  });

  it('when five wrong codes are tried, then the outstanding confirmation is void even for the right code', async () => {
    const first = await step1(reports, OTHER_VIN, 'disable_ignition');
    for (let i = 0; i < 5; i += 1) {
      const wrong = String((Number(first.code) + 1 + i) % 1_000_000).padStart(6, '0');
      expect((await reports.send({ vin: OTHER_VIN, command: 'disable_ignition', code: wrong })).status).toBe(400);
    }
    expect(await reports.send({ vin: OTHER_VIN, command: 'disable_ignition', code: first.code })).toMatchObject({ status: 400, body: { detail: 'Confirmation invalid' } });
    // A new step 1 gives a fresh code that works.
    const fresh = await step1(reports, OTHER_VIN, 'disable_ignition');
    expect((await reports.send({ vin: OTHER_VIN, command: 'disable_ignition', code: fresh.code })).status).toBe(200);
  });

  it('when 50 step-2 calls race with one code, then exactly one becomes Pending and the automaker sees one initiation', async () => {
    const first = await step1(alpha, VIN, 'enable_ignition');
    const results = await Promise.all(Array.from({ length: 50 }, () => alpha.send({ vin: VIN, command: 'enable_ignition', code: first.code })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(results.find((r) => r.status === 200)!.body).toMatchObject({ id: first.id, status: 'Pending' });
    expect(cloud.received.filter((r) => r.id === first.id)).toHaveLength(1);
    const rows = await svc.store.db.selectFrom('commands').select('status').where('id', '=', first.id).execute();
    expect(rows).toEqual([{ status: 'Pending' }]);
  });

  it('when a code is sent with a command that needs none, then it is ignored', async () => {
    const res = await alpha.send({ vin: VIN, command: 'diagnostics', code: '123456' });
    expect(res.body.status).toBe('Pending');
  });
});
