import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { commandClient, sign, type CommandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import type { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { CommandWorker } from '../../src/commands/command-worker.js';
import { claimDueCommands } from '../../src/store/commands/claim-due.js';
import { countedStore } from '../support/statement-count.js';

const VIN = ALPHA_VINS[0];
const SPACED = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const DIAGNOSTICS_FIELDS = [
  'fuel_amount', 'fuel_capacity', 'fuel_level', 'fuel_range', 'ideal_front_tire_pressure', 'ideal_rear_tire_pressure',
  'left_front_tire_pressure', 'left_rear_tire_pressure', 'right_front_tire_pressure', 'right_rear_tire_pressure', 'odometer',
  'oil_remaining_life', 'total_fuel_economy', 'total_fuel_used', 'left_front_tire_pressure_status', 'left_rear_tire_pressure_status',
  'right_front_tire_pressure_status', 'right_rear_tire_pressure_status', 'oil_remaining_life_status', 'seat_belt_status',
  'system_power_mode', 'date_time',
];

describe.each(DATABASE_KINDS)('POST /vehicle-command and GET /vehicle-command/{id} on %s', (kind) => {
  let svc: TestService;
  let cloud: SimulatedOemCloud;
  let alpha: CommandClient;
  let reports: CommandClient;
  let beta: CommandClient;

  /** Runs the worker as time passes until the command leaves Pending (or `maxSeconds` pass). */
  async function settle(client: CommandClient, id: string, maxSeconds = 30) {
    for (let s = 0; s < maxSeconds; s += 1) {
      svc.clock.advance(1000);
      await svc.worker.runOnce();
      const res = await client.status(id);
      if (res.body.status !== 'Pending') return res;
    }
    return client.status(id);
  }

  /** The warn line a 502 creation left for the operator. */
  const causeLogged = (commandId: string) => svc.logs.join('').split('\n').filter((l) => l.includes(commandId))
    .map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.commandId === commandId);

  beforeAll(async () => {
    svc = await startTestService(kind);
    ({ cloud } = await svc.useSimulatedCloud());
    alpha = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    reports = commandClient(svc, await svc.token('alpha-reports', SECRETS.alphaReports.client), SECRETS.alphaReports.sign);
    beta = commandClient(svc, await svc.token('beta-ops', SECRETS.betaOps.client), SECRETS.betaOps.sign);
  });
  afterAll(async () => { await svc?.close(); });

  it('when diagnostics is sent, then it is Pending, then Success with every interface field from the vehicle', async () => {
    const created = await alpha.send({ vin: VIN, command: 'diagnostics' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), vin: VIN, command: 'diagnostics', status: 'Pending', created: expect.stringMatching(SPACED) });
    const pending = await alpha.status(created.body.id);
    expect(pending.body).toEqual({ id: created.body.id, vin: VIN, command: 'diagnostics', status: 'Pending', detail: {}, updated: created.body.created });
    const done = await settle(alpha, created.body.id);
    expect(done.body.status).toBe('Success');
    expect(Object.keys(done.body.detail).sort()).toEqual([...DIAGNOSTICS_FIELDS].sort());
    expect(done.body.detail.fuel_capacity).toBe(55);
    expect(done.body.detail.date_time).toMatch(SPACED);
    expect(done.body.updated).not.toBe(created.body.created);
  });

  it('when commands are created one after another, then their ids are UUIDs that sort in creation order (v7: new rows land at the index\'s edge)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      svc.clock.advance(1);
      const created = await alpha.send({ vin: VIN, command: 'diagnostics' });
      expect(created.status).toBe(200);
      ids.push(created.body.id);
    }
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    [{ command: 'diagnostics' }, 400, 'Invalid VIN. VIN must be a string. At least one VIN is required.'],
    [{ vin: 42, command: 'diagnostics' }, 400, 'Invalid VIN. VIN must be a string. At least one VIN is required.'],
    [{ vin: '', command: 'diagnostics' }, 400, 'Invalid VIN. VIN must be a string. At least one VIN is required.'],
    [{ vin: VIN }, 400, 'Invalid command. Command must be a string. At least one command is required.'],
    [{ vin: VIN, command: ['diagnostics'] }, 400, 'Invalid command. Command must be a string. At least one command is required.'],
    [{ vin: BETA_VINS[0], command: 'diagnostics' }, 404, 'VIN not found or unauthorized access.'],
    [{ vin: 'NOT-A-VIN', command: 'diagnostics' }, 404, 'VIN not found or unauthorized access.'],
    [{ vin: ALPHA_VINS[2], command: 'diagnostics' }, 404, 'VIN not found or unauthorized access.'],
    [{ vin: VIN, command: 'self_destruct' }, 404, 'Command not found or unauthorized access.'],
  ] as [Record<string, unknown>, number, string][])('when the body is %j, then %i %s', async (body, status, detail) => {
    const sig = sign(SECRETS.alphaDispatch.sign, String(body.vin), String(body.command));
    const res = await alpha.send(body, sig);
    expect(res).toMatchObject({ status, body: { detail } });
  });

  it('when the plan lacks the command, then 404 Command not found or unauthorized access.', async () => {
    const res = await beta.send({ vin: BETA_VINS[1], command: 'lock_doors' });
    expect(res).toMatchObject({ status: 404, body: { detail: 'Command not found or unauthorized access.' } });
    expect((await beta.send({ vin: BETA_VINS[1], command: 'diagnostics' })).status).toBe(200);
  });

  it.each([
    ['missing', null],
    ['empty', ''],
    ['63 hex digits', 'a'.repeat(63)],
    ['65 hex digits', 'a'.repeat(65)],
    ['not hex', 'g'.repeat(64)],
    ['valid hex followed by junk', `${'a'.repeat(64)}g`],
    ['prefixed', `sha256=${'a'.repeat(64)}`],
    ['of another body', sign(SECRETS.alphaDispatch.sign, VIN, 'lock_doors')],
    ['made with another application\'s secret', sign(SECRETS.alphaReports.sign, VIN, 'diagnostics')],
  ])('when X-Signature is %s, then 403 X-Signature invalid.', async (_label, signature) => {
    const res = await alpha.send({ vin: VIN, command: 'diagnostics' }, signature);
    expect(res).toMatchObject({ status: 403, body: { detail: 'X-Signature invalid.' } });
  });

  it('when the signature covers the code too, then it is refused: code is never signed', async () => {
    const first = await alpha.send({ vin: VIN, command: 'enable_ignition' });
    const withCode = createHmac('sha256', SECRETS.alphaDispatch.sign).update(JSON.stringify({ code: first.body.code, command: 'enable_ignition', vin: VIN })).digest('hex');
    expect(await alpha.send({ vin: VIN, command: 'enable_ignition', code: first.body.code }, withCode)).toMatchObject({ status: 403, body: { detail: 'X-Signature invalid.' } });
    expect((await alpha.send({ vin: VIN, command: 'enable_ignition', code: first.body.code })).status).toBe(200);
  });

  it('when the signature is upper-case hex, then it is accepted (D4: either case)', async () => {
    expect((await alpha.send({ vin: VIN, command: 'lock_doors' }, sign(SECRETS.alphaDispatch.sign, VIN, 'lock_doors').toUpperCase())).status).toBe(200);
  });

  it('when the signature is computed by openssl in another process, then it is accepted', async () => {
    const body = `{"command":"unlock_doors","vin":"${VIN}"}`;
    const { stdout } = await promisify(execFile)('sh', ['-c', `printf '%s' '${body}' | openssl dgst -sha256 -hmac '${SECRETS.alphaDispatch.sign}' -r`]);
    const signature = stdout.split(' ')[0]!.trim();
    expect((await alpha.send({ vin: VIN, command: 'unlock_doors' }, signature)).status).toBe(200);
  });

  it('when the application has no sign-secret, then 403 Sign-secret not found.', async () => {
    await svc.store.db.updateTable('applications').set({ sign_secret_sealed: null }).where('client_id', '=', 'alpha-short').execute();
    const short = commandClient(svc, await svc.token('alpha-short', SECRETS.alphaShort.client), SECRETS.alphaShort.sign);
    expect(await short.send({ vin: VIN, command: 'diagnostics' })).toMatchObject({ status: 403, body: { detail: 'Sign-secret not found.' } });
  });

  it('when GET is given no id, a malformed id, an unknown id, or another application\'s id, then the interface errors', async () => {
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    for (const path of ['/vehicle-command', '/vehicle-command/']) {
      expect(await svc.request('GET', path, { headers: auth })).toMatchObject({ status: 400, body: { detail: 'Invalid command ID. Command ID must be a string. At least one command ID is required.' } });
    }
    expect(await alpha.status('not-a-uuid')).toMatchObject({ status: 404, body: { detail: 'Command not found.' } });
    expect(await alpha.status('x'.repeat(1000))).toMatchObject({ status: 404, body: { detail: 'Command not found.' } });
    expect(await alpha.status('00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404, body: { detail: 'Command not found.' } });
    const mine = (await alpha.send({ vin: VIN, command: 'lock_doors' })).body.id;
    expect(await reports.status(mine)).toMatchObject({ status: 403, body: { detail: 'Access denied.' } });
    expect(await beta.status(mine)).toMatchObject({ status: 403, body: { detail: 'Access denied.' } });
  });

  it('when the automaker fails to start a command, then 502 with the creation shape and the record kept as Error', async () => {
    cloud.faults.initiateErrorRate = 1;
    const sendFailed = await alpha.send({ vin: VIN, command: 'diagnostics' });
    cloud.faults.initiateErrorRate = 0;
    expect(sendFailed).toMatchObject({ status: 502, body: { vin: VIN, command: 'diagnostics', status: 'Error', detail: 'Failed to send command to the OEM.' } });
    expect((await alpha.status(sendFailed.body.id)).body).toMatchObject({ status: 'Error', detail: 'Failed to send command to the OEM.' });
    // The answer's text is the interface's; the operator's log names the cause, under the request's id.
    expect(causeLogged(sendFailed.body.id)).toMatchObject({
      level: 40, reqId: expect.any(String), automaker: 'simmotors', vin: VIN, command: 'diagnostics', cause: 'automaker answered 500',
    });

    cloud.faults.missingStatusUrlRate = 1;
    const noUrl = await alpha.send({ vin: VIN, command: 'diagnostics' });
    cloud.faults.missingStatusUrlRate = 0;
    expect(noUrl).toMatchObject({ status: 502, body: { status: 'Error', detail: 'Failed to initiate command with the OEM or retrieve status URL.' } });
    expect(causeLogged(noUrl.body.id)).toMatchObject({ automaker: 'simmotors', cause: 'no usable status URL' });
  });

  it('when the OEM\'s cloud is unreachable, then 502 Failed to send command to the OEM.', async () => {
    await svc.store.db.updateTable('vehicles').set({ ownership: 'owned' }).where('vin', '=', ALPHA_VINS[2]).execute();
    const res = await alpha.send({ vin: ALPHA_VINS[2], command: 'diagnostics' });
    expect(res).toMatchObject({ status: 502, body: { status: 'Error', detail: 'Failed to send command to the OEM.' } });
    expect(causeLogged(res.body.id)).toMatchObject({ automaker: 'othermotors', connector: 'http', cause: expect.stringContaining('ECONNREFUSED') });
    expect((await alpha.send({ vin: ALPHA_VINS[2], command: 'locate' })).status).toBe(404);
    await svc.store.db.updateTable('vehicles').set({ ownership: 'rental' }).where('vin', '=', ALPHA_VINS[2]).execute();
  });

  it('when the worker holding a command dies, then the command still ends within seconds of its deadline', async () => {
    const created = await alpha.send({ vin: VIN, command: 'diagnostics' });
    // Another worker claims it for a long lease and is never heard from again.
    svc.clock.advance(2000);
    const claimed = await claimDueCommands(svc.store.db, svc.store.capabilities, 'dead-worker', svc.clock.now(), svc.clock.now() + 10 * 60_000, 50);
    expect(claimed.map((c) => c.id)).toContain(created.body.id);
    svc.clock.advance(120_000 - 2000 + 1000);
    await svc.worker.runOnce();
    expect((await alpha.status(created.body.id)).body.status).toBe('Pending');
    svc.clock.advance(5000);
    await svc.worker.runOnce();
    expect((await alpha.status(created.body.id)).body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
  });

  it('when no command is due or overdue, then a worker pass is one statement; a poll falling due and a deadline passing each still get a whole pass', async () => {
    const counted = countedStore(svc.store);
    const worker = new CommandWorker(counted.store, svc.connectors, svc.clock, { leaseMs: 15_000, batch: 50, idleIntervalMs: 250 });
    const statementsOfPass = async () => {
      counted.reset();
      await worker.runOnce();
      return counted.statements.length;
    };
    svc.clock.advance(200_000); // what earlier tests left Pending ends
    await worker.runOnce();
    expect(await statementsOfPass()).toBe(1);
    const created = await alpha.send({ vin: VIN, command: 'diagnostics' });
    expect(await statementsOfPass()).toBe(1); // its first poll is a second away
    svc.clock.advance(1500);
    expect(await statementsOfPass()).toBeGreaterThan(1);
    expect(counted.statements).toContain('UpdateQueryNode'); // the claim
    expect(await svc.store.db.selectFrom('commands').select(['status', 'poll_attempts']).where('id', '=', created.body.id).executeTakeFirstOrThrow())
      .toSatisfy((c: { status: string; poll_attempts: number }) => c.status === 'Success' || c.poll_attempts === 1);
    // Held by a worker that died: no poll is due, only the deadline (and the grace after it) passes.
    const held = await alpha.send({ vin: VIN, command: 'diagnostics' });
    svc.clock.advance(2000);
    await claimDueCommands(svc.store.db, svc.store.capabilities, 'dead-worker', svc.clock.now(), svc.clock.now() + 10 * 60_000, 50);
    expect(await statementsOfPass()).toBe(1);
    svc.clock.advance(125_000);
    expect(await statementsOfPass()).toBeGreaterThan(1);
    expect((await alpha.status(held.body.id)).body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
    expect(await statementsOfPass()).toBe(1);
  });

  it('when status calls hang, then the command is retried until its deadline and ends as Command timeout.', async () => {
    const created = await alpha.send({ vin: VIN, command: 'diagnostics' });
    cloud.faults.hangStatus = true;
    try {
      svc.clock.advance(60_000);
      await svc.worker.runOnce();
      expect((await alpha.status(created.body.id)).body.status).toBe('Pending');
      svc.clock.advance(61_000);
      await svc.worker.runOnce();
    } finally {
      cloud.faults.hangStatus = false;
    }
    expect((await alpha.status(created.body.id)).body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
  });
});
