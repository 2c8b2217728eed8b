/**
 * The SDK against the real service (both databases): every operation, every error class, the
 * token shared by concurrent calls, a lost answer to command creation retried without a second
 * command, the confirmation flow, waiting to Success, Error and timeout, events, webhooks, geofences, alert rules.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError, BadRequestError, CommandStartError, ConfirmationDeclinedError, ConflictError, ConnectionError, GoneError, NotFoundError,
  PermissionError, RateLimitError, ServerError, TelematicsClient, TelematicsError, TimeoutError, UnprocessableEntityError, WebhookVerificationError,
  type FetchLike, type TelematicsEvent,
} from '@telematics/sdk';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { deleteEventsBefore } from '../../src/store/events-queries.js';
import { keyringFromDocument } from '../../src/security/keyring.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import type { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, fixtureFleet, SECRETS } from '../support/fixture-fleet.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const VIN = ALPHA_VINS[0];
const MOVING = '9BWPRF00000000002';
const OFFLINE = '9BWPRF00000000003';
const MIN = 60;

/** What went over the wire, for counting /token calls and seeing replay headers. */
interface Seen { readonly method: string; readonly path: string; readonly status: number; readonly replayed: boolean }

function recordingFetch(seen: Seen[], dropFirst?: (method: string, path: string) => boolean): FetchLike {
  let dropped = false;
  return async (url, init) => {
    const response = await fetch(url, init);
    const path = new URL(url).pathname;
    const method = init.method ?? 'GET';
    seen.push({ method, path, status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true' });
    if (!dropped && dropFirst?.(method, path)) {
      // The service did the work and answered; the answer is lost on the way back.
      dropped = true;
      await response.arrayBuffer();
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    }
    return response;
  };
}

describe.each(DATABASE_KINDS)('@telematics/sdk against the service on %s', (kind) => {
  let svc: TestService;
  let cloud: SimulatedOemCloud;
  let seen: Seen[];
  let client: TelematicsClient;
  let stopDriving: (() => Promise<void>) | undefined;

  const clientFor = (extra: Partial<ConstructorParameters<typeof TelematicsClient>[0]> = {}) => new TelematicsClient({
    baseUrl: svc.url, clientId: 'alpha-dispatch', clientSecret: SECRETS.alphaDispatch.client, signSecret: SECRETS.alphaDispatch.sign,
    fetch: recordingFetch(seen), ...extra,
  });

  /** Runs the command worker on the test clock, as the service's background loop would. */
  function driveCommands(): void {
    let stop = false;
    const loop = (async () => {
      while (!stop) {
        svc.clock.advance(1000);
        await svc.worker.runOnce();
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    stopDriving = async () => { stop = true; await loop; stopDriving = undefined; };
  }

  /** A diagnostics command run to Success (a command.succeeded event); answers its id. */
  async function runCommand(): Promise<string> {
    const handle = await client.commands.send(VIN, 'diagnostics');
    driveCommands();
    try {
      await handle.wait({ intervalMs: 20, timeoutMs: 10_000 });
    } finally {
      await stopDriving?.();
    }
    return handle.id;
  }

  beforeAll(async () => {
    const fleet = fixtureFleet();
    for (const [profile, vin] of [['moving', MOVING], ['offline', OFFLINE]] as const) {
      fleet.companies[0]!.vehicles.push({ vin, plate: `PRF${vin.slice(-1)}`, oem: 'simmotors', model: 'Sim', year: 2024, fuel_capacity: 50, sim: { profile, telemetry: false } });
    }
    svc = await startTestService(kind, fleet);
    ({ cloud } = await svc.useSimulatedCloud());
    // Three hours ago: parked, 20 minutes at 60 km/h, parked; the trip worker closes the trip.
    const drive = syntheticDrive(T0 - 3 * 3600_000, [stand(10 * MIN), move(60, 20 * MIN), stand(40 * MIN)]);
    const ingested = await svc.ingest(drive.map((r) => ({ vin: VIN, date_time: iso(r.ts), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer })));
    expect(ingested.body.rejected).toEqual([]);
    await runTripDetectionOnce(svc.store, svc.clock, { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 86_400_000, intervalMs: 5000 }, { expire: false });
  });
  afterAll(async () => {
    await stopDriving?.();
    await svc?.close();
  });

  it('when 50 calls start on a cold client, then one POST /token serves them all, and the vehicles are the company\'s', async () => {
    seen = [];
    client = clientFor();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? client.vehicles.list() : client.vehicles.get(VIN))));
    expect(seen.filter((s) => s.path === '/token')).toHaveLength(1);
    expect(seen.filter((s) => s.path !== '/token')).toHaveLength(50);
    const list = answers[0] as Awaited<ReturnType<TelematicsClient['vehicles']['list']>>;
    expect(list.map((v) => v.vin).sort()).toEqual([...ALPHA_VINS, MOVING, OFFLINE].sort());
    expect(answers[1]).toMatchObject({ vin: VIN, plate: 'ABC1D23', status: 'active' });
  });

  it('when the service stops accepting the cached token (keys rotated), then the client fetches one token and replays the call once', async () => {
    const before = seen.filter((s) => s.path === '/token').length;
    const old = svc.keyring;
    const rotated = keyringFromDocument({
      jwt: [{ kid: 'rotated', secret: Buffer.alloc(32, 9).toString('base64') }], master: old.master.map((k) => ({ id: k.id, key: k.key.toString('base64') })),
    }, 'test');
    await svc.restartWithKeyring(rotated);
    expect((await client.vehicles.get(VIN)).vin).toBe(VIN);
    expect(seen.filter((s) => s.path === '/token')).toHaveLength(before + 1);
    expect(seen.filter((s) => s.status === 401)).toHaveLength(1);
  });

  it('when datapoints are asked for, then each record holds exactly those, typed', async () => {
    const start = new Date(T0 - 3 * 3600_000);
    const data = await client.vehicleData.query({ vins: [VIN], datapoints: ['date_time', 'speed', 'odometer'], start_date: start, end_date: new Date(T0) });
    const rows = data[VIN]!;
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) expect(Object.keys(row)).toEqual(['date_time', 'speed', 'odometer']);
    expect(Math.max(...rows.map((r) => r.speed ?? 0))).toBeGreaterThan(50);
    // Text dates go as written.
    const text = await client.vehicleData.query({ vins: [VIN], datapoints: ['speed'], start_date: '2026-11-20T06:00:00', end_date: '2026-11-20T06:30:00' });
    expect(text[VIN]!.length).toBeGreaterThan(0);
  });

  it('when trips are asked for, then the drive is one trip with the requested fields', async () => {
    const trips = await client.trips.query({ vins: [VIN], datapoints: ['start_date_time', 'duration', 'distance', 'max_speed'] });
    expect(trips[VIN]).toHaveLength(1);
    const trip = trips[VIN]![0]!;
    expect(Object.keys(trip)).toEqual(['start_date_time', 'duration', 'distance', 'max_speed']);
    expect(trip.distance).toBeCloseTo(20, 0);
  });

  it('when the service refuses a request, then the error has its class, status, exact detail, catalogue code and request id', async () => {
    const expectError = async (call: Promise<unknown>, Kind: typeof TelematicsError, status: number, code: string, detail?: string) => {
      const error = await call.then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(Kind);
      const e = error as TelematicsError;
      expect({ status: e.status, code: e.code }).toEqual({ status, code });
      if (detail !== undefined) expect(e.detail).toBe(detail);
      expect(e.requestId).toMatch(/\S/);
      return e;
    };
    await expectError(client.vehicles.get('9BWZZZ377VT999999'), NotFoundError, 404, 'TLM_VIN_NOT_FOUND', 'VIN not found or unauthorized access.');
    await expectError(client.vehicleData.query({ vins: Array.from({ length: 21 }, (_, i) => `9BWZZZ377VT1000${String(i).padStart(2, '0')}`), datapoints: ['speed'] }),
      BadRequestError, 400, 'TLM_TOO_MANY_VINS', 'Too many VINs provided. Maximum allowed is 20.');
    // A text with placeholders still gets its code.
    const noData = await expectError(client.vehicleData.query({ vins: [VIN], datapoints: ['speed'], start_date: '2026-11-15T00:00:00', end_date: '2026-11-15T12:00:00' }),
      NotFoundError, 404, 'TLM_NO_DATA');
    expect(noData.detail).toMatch(/^No data for the given date range: /);
    // @ts-expect-error an unknown datapoint is a type error; the service answers it 400 too
    await expectError(client.vehicleData.query({ vins: [VIN], datapoints: ['warp_factor'] }), BadRequestError, 400, 'TLM_UNKNOWN_DATAPOINT', 'Unknown datapoint: warp_factor.');
    const wrongSecret = new TelematicsClient({ baseUrl: svc.url, clientId: 'alpha-dispatch', clientSecret: 'nope' });
    await expectError(wrongSecret.vehicles.list(), AuthenticationError, 401, 'TLM_INVALID_CLIENT_CREDENTIALS', 'Invalid client credentials.');
    const badToken = new TelematicsClient({ baseUrl: svc.url, tokenProvider: () => 'not-a-jwt' });
    await expectError(badToken.vehicles.list(), AuthenticationError, 401, 'TLM_INVALID_TOKEN', 'Invalid or expired token.');
    const wrongSign = clientFor({ signSecret: 'not-the-sign-secret' });
    await expectError(wrongSign.commands.create({ vin: VIN, command: 'diagnostics' }), PermissionError, 403, 'TLM_SIGNATURE_INVALID', 'X-Signature invalid.');
    await expectError(client.commands.create({ vin: BETA_VINS[0], command: 'diagnostics' }), NotFoundError, 404, 'TLM_VIN_NOT_FOUND');
    await expectError(client.commands.retrieve('00000000-0000-4000-8000-000000000000'), NotFoundError, 404, 'TLM_COMMAND_NOT_FOUND', 'Command not found.');
    await expectError(client.events.page({ after: 'nonsense' }), BadRequestError, 400, 'TLM_EVENT_CURSOR_INVALID');
    // The same key with another request.
    await client.commands.create({ vin: VIN, command: 'locate' }, { idempotencyKey: 'sdk-reused-key' });
    await expectError(client.commands.create({ vin: VIN, command: 'diagnostics' }, { idempotencyKey: 'sdk-reused-key' }),
      UnprocessableEntityError, 422, 'TLM_IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key already used with a different request.');
  });

  it('when no answer comes, then ConnectionError or TimeoutError, after the retries of a read', async () => {
    const closed = await new Promise<Server>((resolve) => { const s = createServer(); s.listen(0, '127.0.0.1', () => resolve(s)); });
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const nobody = new TelematicsClient({ baseUrl: `http://127.0.0.1:${port}`, tokenProvider: () => 't', maxRetries: 1 });
    const refused = await nobody.vehicles.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConnectionError);
    expect((refused as ConnectionError).status).toBeUndefined();
    // Aborted while waiting to retry: at once, and no further attempt.
    const tries: number[] = [];
    const patient = new TelematicsClient({ baseUrl: `http://127.0.0.1:${port}`, tokenProvider: () => 't', maxRetries: 5, fetch: (url, init) => { tries.push(1); return fetch(url, init); } });
    const t0 = Date.now();
    const abortedInBackoff = await patient.vehicles.list({ signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    expect((abortedInBackoff as Error).name).toBe('TimeoutError');
    expect(abortedInBackoff).not.toBeInstanceOf(TelematicsError);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(tries).toHaveLength(1);

    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const attempts: number[] = [];
      const slow = new TelematicsClient({
        baseUrl: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, tokenProvider: () => 't', timeoutMs: 150, maxRetries: 1,
        fetch: (url, init) => { attempts.push(Date.now()); return fetch(url, init); },
      });
      expect(await slow.vehicles.list().catch((e: unknown) => e)).toBeInstanceOf(TimeoutError);
      expect(attempts).toHaveLength(2);
      // A caller's abort is the caller's: not retried, not wrapped.
      const controller = new AbortController();
      const aborted = slow.vehicles.list({ signal: controller.signal, timeoutMs: 10_000 });
      setTimeout(() => controller.abort(new Error('user went away')), 50);
      expect(await aborted.catch((e: unknown) => e)).toMatchObject({ message: 'user went away' });
    } finally {
      silent.close();
    }
  });

  it('when the answer to a command creation is lost, then the retry with the same Idempotency-Key gets the first answer and the automaker one command', async () => {
    const lossy: Seen[] = [];
    const flaky = clientFor({ fetch: recordingFetch(lossy, (method, path) => method === 'POST' && path === '/vehicle-command') });
    const before = cloud.received.length;
    const handle = await flaky.commands.send(VIN, 'diagnostics');
    const creations = lossy.filter((s) => s.path === '/vehicle-command');
    expect(creations.map((s) => [s.status, s.replayed])).toEqual([[200, false], [200, true]]);
    const rows = await svc.store.db.selectFrom('commands').select('id').where('vin', '=', VIN).where('command', '=', 'diagnostics').execute();
    expect(rows.filter((r) => r.id === handle.id)).toHaveLength(1);
    expect(cloud.received.slice(before).filter((r) => r.vin === VIN)).toHaveLength(1);
    expect(cloud.received.at(-1)!.id).toBe(handle.id);
  });

  it('when the first request with a key is still running, then a second one with the key waits for it (409 in flight) and gets its answer', async () => {
    const watched: Seen[] = [];
    const watching = clientFor({ fetch: recordingFetch(watched) });
    cloud.faults.initiateDelayMs = 1500;
    try {
      const [a, b] = await Promise.all([
        watching.commands.create({ vin: VIN, command: 'diagnostics' }, { idempotencyKey: 'sdk-in-flight' }),
        new Promise((r) => setTimeout(r, 200)).then(() => watching.commands.create({ vin: VIN, command: 'diagnostics' }, { idempotencyKey: 'sdk-in-flight' })),
      ]);
      expect(b).toEqual(a);
      const statuses = watched.filter((s) => s.path === '/vehicle-command').map((s) => s.status);
      expect(statuses.filter((s) => s === 409).length).toBeGreaterThanOrEqual(1);
      expect(watched.filter((s) => s.path === '/vehicle-command' && s.replayed)).toHaveLength(1);
      expect(cloud.received.filter((r) => r.id === a.id)).toHaveLength(1);
    } finally {
      cloud.faults.initiateDelayMs = 0;
    }
  });

  it('when the answer to a request that is not safe to repeat is lost, then it is sent once and the caller is told', async () => {
    const lossy: Seen[] = [];
    const flaky = clientFor({ fetch: recordingFetch(lossy, (method, path) => method === 'POST' && path === '/webhook-endpoints') });
    const lost = await flaky.webhookEndpoints.create({ url: 'http://127.0.0.1:9/never', event_types: ['*'] }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(ConnectionError);
    expect(lossy.filter((s) => s.path === '/webhook-endpoints')).toHaveLength(1);
    for (const endpoint of await client.webhookEndpoints.list()) await client.webhookEndpoints.delete(endpoint.id);
  });

  it('when a command is sent and the vehicle answers, then wait() ends in Success with the result', async () => {
    const handle = await client.commands.send(VIN, 'diagnostics');
    expect(handle).toMatchObject({ vin: VIN, command: 'diagnostics', id: expect.stringMatching(/^[0-9a-f-]{36}$/), created: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
    driveCommands();
    try {
      const outcome = await handle.wait({ intervalMs: 20, timeoutMs: 10_000 });
      expect(outcome.status).toBe('Success');
      if (outcome.status === 'Success') expect(outcome.detail.odometer).toEqual(expect.any(Number));
    } finally {
      await stopDriving?.();
    }
  });

  it('when an ignition command is sent, then the caller confirms the Portuguese alert, the code goes back, and the command runs', async () => {
    const asked: string[] = [];
    const before = cloud.received.length;
    const handle = await client.commands.send(VIN, 'disable_ignition', { confirm: ({ message, code }) => { asked.push(message); expect(code).toMatch(/^\d{6}$/); return true; } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/ignição/);
    driveCommands();
    try {
      expect(await handle.wait({ intervalMs: 20, timeoutMs: 10_000 })).toMatchObject({ id: handle.id, status: 'Success', detail: { ignition: 'disabled' } });
    } finally {
      await stopDriving?.();
    }
    expect(cloud.received.slice(before).map((r) => r.id)).toEqual([handle.id]);

    // Declined, or no callback: nothing reaches the vehicle.
    const declined = await client.commands.send(VIN, 'enable_ignition', { confirm: async () => false }).catch((e: unknown) => e);
    expect(declined).toBeInstanceOf(ConfirmationDeclinedError);
    expect((declined as ConfirmationDeclinedError).confirmation.message).toMatch(/ignição/);
    await expect(client.commands.send(VIN, 'enable_ignition')).rejects.toThrow(TypeError);
    expect(cloud.received.length).toBe(before + 1);

    // A used code is a ConflictError.
    const first = await client.commands.create({ vin: VIN, command: 'enable_ignition' });
    if (first.status !== 'Confirmation') throw new Error('expected a confirmation');
    await client.commands.create({ vin: VIN, command: 'enable_ignition', code: first.code });
    const reused = await client.commands.create({ vin: VIN, command: 'enable_ignition', code: first.code }).catch((e: unknown) => e);
    expect(reused).toMatchObject({ status: 409, code: 'TLM_CONFIRMATION_USED', detail: 'Confirmation already used' });
    expect(reused).toBeInstanceOf(ConflictError);
  });

  it('when the vehicle refuses, then wait() ends in Error with the text; when it never answers, then TimeoutError', async () => {
    const blocked = await client.commands.send(MOVING, 'disable_ignition', { confirm: () => true });
    driveCommands();
    try {
      expect(await blocked.wait({ intervalMs: 20, timeoutMs: 10_000 })).toMatchObject({ status: 'Error', detail: 'Commands blocked.' });
    } finally {
      await stopDriving?.();
    }
    const silent = await client.commands.send(OFFLINE, 'diagnostics');
    const started = Date.now();
    const waited = await silent.wait({ intervalMs: 20, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(TimeoutError);
    expect((waited as TimeoutError).detail).toBe(`command ${silent.id} still Pending after 300 ms`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('when the automaker cannot start a command, then CommandStartError carries the command; another application reading it is PermissionError', async () => {
    cloud.faults.initiateErrorRate = 1;
    try {
      const failed = await client.commands.send(VIN, 'diagnostics').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(CommandStartError);
      expect(failed).toBeInstanceOf(ServerError);
      const { command, status, detail } = failed as CommandStartError;
      expect({ status, detail, command: command.status }).toEqual({ status: 502, detail: 'Failed to send command to the OEM.', command: 'Error' });
      expect((failed as CommandStartError).code).toBe('TLM_OEM_SEND_FAILED');
      expect((failed as CommandStartError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      const reports = new TelematicsClient({ baseUrl: svc.url, clientId: 'alpha-reports', clientSecret: SECRETS.alphaReports.client });
      const denied = await reports.commands.retrieve(command.id).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(PermissionError);
      expect(denied).toMatchObject({ status: 403, code: 'TLM_ACCESS_DENIED', detail: 'Access denied.' });
    } finally {
      cloud.faults.initiateErrorRate = 0;
    }
  });

  it('when the fleet\'s newest records are read, then every vehicle is there with its state, typed; the command history pages newest first', async () => {
    const fleet = await client.vehicleData.latest();
    expect(fleet.map((v) => v.vin)).toEqual([...ALPHA_VINS, MOVING, OFFLINE].sort());
    const drove = fleet.find((v) => v.vin === VIN)!;
    // Its newest record is from the end of the drive, two hours before now: past the offline threshold.
    expect(drove.state).toBe('offline');
    const speed: number | null | undefined = drove.record?.speed;
    expect(speed).toBe(0);
    expect(fleet.find((v) => v.vin === ALPHA_VINS[1])).toEqual({ vin: ALPHA_VINS[1], state: 'no_data', record: null });

    const all: string[] = [];
    for await (const command of client.commands.list({ limit: 2 })) all.push(command.id);
    const page = await client.commands.page({ limit: 100 });
    expect(all).toEqual(page.data.map((c) => c.id));
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(page.next_cursor).toBeNull();
    const wrong = await client.commands.page({ limit: 500 }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 400, code: 'TLM_COMMAND_LIMIT_INVALID', detail: 'limit must be an integer from 1 to 100.' });
  });

  it('when alert rules are created, read, replaced and deleted, then each answer is typed with its defaults, and a bad body is BadRequestError', async () => {
    const created = await client.alertRules.create({ name: 'SDK speeding', kind: 'overspeed', threshold: 100, vins: [VIN] });
    expect(created).toMatchObject({ name: 'SDK speeding', kind: 'overspeed', threshold: 100, duration_s: 0, cooldown_s: 600, enabled: true, vins: [VIN], schedule: null });
    expect(await client.alertRules.get(created.id)).toEqual(created);
    expect((await client.alertRules.list()).map((r) => r.id)).toContain(created.id);
    const tried = await client.alertRules.preview({ rule_id: created.id, days: 1 });
    expect(tried).toMatchObject({ rule_id: created.id, truncated: false });
    expect(tried.events.every((e) => e.type === 'alert.overspeed')).toBe(true);
    const replaced = await client.alertRules.replace(created.id, {
      name: 'SDK night use', kind: 'after_hours', schedule: { time_zone: 'America/New_York', weekly: [{ days: ['mon'], from: '08:00', to: '24:00' }] },
    });
    const zone: string | undefined = replaced.schedule?.time_zone;
    expect([replaced.id, replaced.kind, zone, replaced.threshold]).toEqual([created.id, 'after_hours', 'America/New_York', null]);
    // @ts-expect-error an unknown kind is a type error; the service answers it 400 too
    const wrong = await client.alertRules.create({ name: 'x', kind: 'speeding' }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(BadRequestError);
    expect(wrong).toMatchObject({ code: 'TLM_ALERT_RULE_INVALID', detail: 'Invalid alert rule: kind must be one of overspeed, idling, no_data, low_fuel, low_battery, after_hours.' });
    await client.alertRules.delete(created.id);
    expect(await client.alertRules.get(created.id).catch((e: unknown) => e)).toMatchObject({ status: 404, code: 'TLM_ALERT_RULE_NOT_FOUND' });
  });

  it('when events are listed, then every page is walked in order, typed, and the cursor resumes after them', async () => {
    const list = client.events.list({ limit: 2 });
    const events: TelematicsEvent[] = [];
    for await (const event of list) events.push(event);
    const types = events.map((e) => e.type);
    expect(types).toContain('trip.ended');
    expect(types).toContain('command.succeeded');
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const succeeded = events.find((e): e is TelematicsEvent<'command.succeeded'> => e.type === 'command.succeeded')!;
    expect(succeeded.data.status).toBe('Success');
    expect(list.cursor).toMatch(/\S/);
    expect(await client.events.list({ after: list.cursor }).toArray({ limit: 10 })).toEqual([]);
    expect(await client.events.list({ types: ['trip.ended'] }).toArray({ limit: 100 })).toEqual(events.filter((e) => e.type === 'trip.ended'));
  });

  it('when the stream is cut, then it reconnects with Last-Event-ID and nothing is lost or repeated', async () => {
    const port = Number(new URL(svc.url).port);
    const proxy = new TcpProxy('127.0.0.1', port);
    const streamed: { headers: Record<string, string> }[] = [];
    const proxied = clientFor({
      baseUrl: `http://127.0.0.1:${await proxy.listen()}`,
      fetch: (url, init) => { if (url.includes('/events/stream')) streamed.push({ headers: init.headers as Record<string, string> }); return fetch(url, init); },
    });
    const controller = new AbortController();
    // No `after`: the stream's first frame says where it starts, so a cut before any event loses nothing either.
    const stream = proxied.events.stream({ types: ['command.succeeded'], signal: controller.signal, reconnectDelayMs: 50 });
    const received: TelematicsEvent[] = [];
    const reading = (async () => { for await (const event of stream) received.push(event); })();
    for (let i = 0; i < 100 && stream.lastEventId === undefined; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(stream.lastEventId).toMatch(/^ev1\./);
    // Waits for this command's event: an earlier test's command finishing meanwhile is streamed too.
    const has = (id: string) => received.some((e) => (e as TelematicsEvent<'command.succeeded'>).data.id === id);
    const until = async (id: string) => { for (let i = 0; i < 500 && !has(id); i += 1) await new Promise((r) => setTimeout(r, 20)); };
    try {
      // Cut before any event arrived, then after one.
      await proxy.cut();
      const first = await runCommand();
      await proxy.restore();
      await until(first);
      await proxy.cut();
      const second = await runCommand(); // while the stream is down
      await proxy.restore();
      await until(second);
      await new Promise((r) => setTimeout(r, 300));
      // Driving the worker may also finish a command an earlier test left pending: its event is
      // streamed too, so only this test's two are compared, and nothing may come twice.
      const ids = received.map((e) => (e as TelematicsEvent<'command.succeeded'>).data.id);
      expect(ids.filter((id) => id === first || id === second)).toEqual([first, second]);
      expect(new Set(received.map((e) => e.id)).size).toBe(received.length);
      expect(streamed.length).toBeGreaterThanOrEqual(2);
      expect(streamed.at(-1)!.headers['last-event-id']).toMatch(/^ev1\./);
    } finally {
      controller.abort();
      await reading;
      await proxy.close();
    }
  });

  it('when retention dropped what a cursor points after, then GoneError', async () => {
    const { next_cursor: old } = await client.events.page({ limit: 500 });
    await runCommand();
    expect((await client.events.page({ after: old })).data).toHaveLength(1); // numbered, so retention records what it drops
    expect(await deleteEventsBefore(svc.store.db, Date.now() + 60_000)).toBeGreaterThan(0);
    const gone = await client.events.page({ after: old }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(GoneError);
    expect(gone).toMatchObject({ status: 410, code: 'TLM_EVENT_CURSOR_EXPIRED' });
  });

  it('when geofences are created, walked page by page, replaced and deleted, then every answer is typed; a refused body is BadRequestError; a lost PUT is sent once', async () => {
    const depot = await client.geofences.create({ name: 'Depot', geometry: { type: 'Point', coordinates: [-46.63, -23.55] }, radius_m: 150 });
    const radius: number | undefined = depot.radius_m;
    expect(radius).toBe(150);
    const route = await client.geofences.create({ name: 'Avenida', geometry: { type: 'LineString', coordinates: [[-46.7, -23.5], [-46.6, -23.6]] }, width_m: 60 });
    const names: string[] = [];
    for await (const fence of client.geofences.list({ limit: 1 })) names.push(fence.name);
    expect(names).toEqual(['Avenida', 'Depot']);
    const square = [[-46.64, -23.56], [-46.62, -23.56], [-46.62, -23.54], [-46.64, -23.54], [-46.64, -23.56]];
    const replaced = await client.geofences.replace(depot.id, { name: 'Yard', geometry: { type: 'Polygon', coordinates: [square] } });
    expect(replaced).toMatchObject({ id: depot.id, name: 'Yard', geometry: { type: 'Polygon', coordinates: [square] }, created: depot.created });
    expect(replaced.radius_m).toBeUndefined();
    expect(await client.geofences.get(depot.id)).toEqual(replaced);
    const tried = await client.geofences.preview({ geofence_id: depot.id, days: 1 });
    expect(tried).toMatchObject({ geofence_id: depot.id, truncated: false });
    expect(tried.events.every((e) => e.type.startsWith('geofence.') && e.data['geofence_id'] === depot.id)).toBe(true);

    const wrong = await client.geofences.create({ name: 'x', geometry: { type: 'Point', coordinates: [0, 0] }, radius_m: 5 }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(BadRequestError);
    expect(wrong).toMatchObject({ status: 400, code: 'TLM_GEOFENCE_INVALID', detail: 'Invalid geofence: radius_m must be a number from 10 to 50000.' });
    const lossy: Seen[] = [];
    const flaky = clientFor({ fetch: recordingFetch(lossy, (method) => method === 'PUT') });
    expect(await flaky.geofences.replace(route.id, { name: 'Avenida', geometry: route.geometry, width_m: 80 }).catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
    expect(lossy.filter((s) => s.method === 'PUT')).toHaveLength(1);

    await client.geofences.delete(depot.id);
    await client.geofences.delete(route.id);
    await expect(client.geofences.get(depot.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await client.geofences.page()).data).toEqual([]);
  });

  it('when a vehicle is shared, listed and revoked, then the link is typed, its URL answers until revoked, and revoking twice is no error', async () => {
    const link = await client.shareLinks.create({ vin: ALPHA_VINS[0], label: 'Order 7', expires_in: 600 });
    const url: string = link.url;
    expect(link).toMatchObject({ vin: ALPHA_VINS[0], label: 'Order 7', state: 'active', revoked_at: null });
    expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{43}$/);
    expect((await fetch(`${url}/position`)).status).toBe(200);
    // Ids are ordered by their millisecond: the second link is made a second later on the test's clock.
    svc.clock.advance(1000);
    const second = await client.shareLinks.create({ vin: ALPHA_VINS[0] }).finally(() => svc.clock.advance(-1000));
    const ids: string[] = [];
    for await (const each of client.shareLinks.list({ vin: ALPHA_VINS[0], limit: 1 })) ids.push(each.id);
    expect(ids.slice(0, 2)).toEqual([second.id, link.id]);
    await client.shareLinks.revoke(link.id);
    await client.shareLinks.revoke(link.id);
    expect((await client.shareLinks.get(link.id)).state).toBe('revoked');
    expect((await fetch(`${url}/position`)).status).toBe(410);
    const refused = await client.shareLinks.create({ vin: ALPHA_VINS[0], expires_in: 60 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, detail: 'Invalid request: body.expires_in must be >= 300.' });
    await expect(client.shareLinks.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
  });

  describe('webhooks', () => {
    let receiver: WebhookReceiver;
    let secret: string;
    const verifier = () => client.webhooks;

    beforeAll(async () => {
      receiver = await startWebhookReceiver(async (received, res) => {
        // The receiver an application writes with the SDK: verify the raw body, answer the challenge.
        try {
          // The service's clock is the test's.
          const event = await verifier().verify(received.body, received.headers as Record<string, string>, secret, { now: svc.clock.now() });
          const answer = event.type === 'webhook.verification' ? verifier().verificationResponse(event) : { ok: true };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        } catch (error) {
          res.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
        }
      });
    });
    afterAll(async () => { await receiver?.close(); });

    it('when an endpoint is registered, then a receiver built on the SDK answers the challenge, verifies delivered events before and after a secret rotation, and recovery finds nothing missed', async () => {
      secret = '';
      const created = await client.webhookEndpoints.create({ url: receiver.url, event_types: ['*'] });
      secret = created.secret;
      // The challenge went out before the secret was known here: ask again now.
      expect((await client.webhookEndpoints.verify(created.id)).verification).toMatchObject({ verified: true });
      expect((await client.webhookEndpoints.get(created.id)).status).toBe('enabled');
      expect((await client.webhookEndpoints.list()).map((e) => e.id)).toContain(created.id);
      // A ping right after the challenge waits its turn: not retried (it is not safe to), the wait is said.
      const early = await client.webhookEndpoints.test(created.id).catch((e: unknown) => e);
      expect(early).toBeInstanceOf(RateLimitError);
      expect((early as RateLimitError).retryAfter).toBeLessThanOrEqual(5);
      // A real event, delivered by the dispatcher, passes the SDK's verification (the receiver answers 200 only then).
      const commandId = await runCommand();
      for (let i = 0; i < 50 && !receiver.received.some((r) => r.event.type === 'command.succeeded'); i += 1) {
        await svc.dispatcher.runOnce();
        await new Promise((r) => setTimeout(r, 20));
      }
      const attempts = await client.webhookEndpoints.attempts(created.id, { limit: 5 });
      expect(attempts.some((a) => a.status_code === 200)).toBe(true);
      const delivered = receiver.received.find((r) => r.event.type === 'command.succeeded')!;
      const headers = delivered.headers as Record<string, string>;
      const now = svc.clock.now();
      const event = await client.webhooks.verify(delivered.body, headers, secret, { now });
      if (event.type !== 'command.succeeded') throw new Error(`unexpected ${event.type}`);
      expect(event.data).toMatchObject({ id: commandId, status: 'Success' });
      const rotated = await client.webhookEndpoints.rotateSecret(created.id);
      expect(rotated.secret).toMatch(/^whsec_/);
      // After a rotation deliveries carry both signatures: a receiver that knows only the new secret
      // verifies them, and so does one that still has the old.
      const oldSecret = secret;
      secret = rotated.secret;
      const seenBefore = receiver.received.length;
      const afterRotationId = await runCommand();
      const fresh = () => receiver.received.slice(seenBefore).find((r) => r.event.type === 'command.succeeded');
      for (let i = 0; i < 50 && fresh() === undefined; i += 1) {
        await svc.dispatcher.runOnce();
        await new Promise((r) => setTimeout(r, 20));
      }
      const rotatedDelivery = fresh()!;
      const rotatedHeaders = rotatedDelivery.headers as Record<string, string>;
      expect(rotatedHeaders['webhook-signature']!.split(' ')).toHaveLength(2);
      for (const known of [rotated.secret, oldSecret]) {
        expect(await client.webhooks.verify(rotatedDelivery.body, rotatedHeaders, known, { now: svc.clock.now() })).toMatchObject({ data: { id: afterRotationId } });
      }
      expect((await client.webhookEndpoints.attempts(created.id, { limit: 1 }))[0]).toMatchObject({ status_code: 200 });
      secret = oldSecret;
      // A tampered body, an old timestamp, a wrong secret, a parsed body: refused.
      await expect(client.webhooks.verify(delivered.body.replace('}', ' }'), headers, secret, { now })).rejects.toThrow(WebhookVerificationError);
      await expect(client.webhooks.verify(delivered.body, headers, secret, { now: now + 301_000 })).rejects.toThrow('too old');
      await expect(client.webhooks.verify(delivered.body, headers, 'whsec_' + btoa('another secret, 16+ bytes'), { now })).rejects.toThrow('no signature matches');
      await expect(client.webhooks.verify(JSON.parse(delivered.body), headers, secret, { now })).rejects.toThrow('raw body');
      // Recovery queues what the endpoint missed since then (a Date goes as the service's text): nothing here.
      expect(await client.webhookEndpoints.recover(created.id, new Date(svc.clock.now() - 3_600_000))).toEqual({ queued: 0 });
      await client.webhookEndpoints.delete(created.id);
      await expect(client.webhookEndpoints.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
    });
  });
});

describe('@telematics/sdk rate limits', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite', fixtureFleet(), { rateLimits: { tokenPerAddress: { limit: 1, windowMs: 60_000 } } });
  });
  afterAll(async () => { await svc?.close(); });

  it('when /token is rate limited, then RateLimitError with Retry-After once retries are spent', async () => {
    const make = () => new TelematicsClient({ baseUrl: svc.url, clientId: 'alpha-dispatch', clientSecret: SECRETS.alphaDispatch.client, maxRetries: 0 });
    await make().vehicles.list();
    const limited = await make().vehicles.list().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: 'TLM_RATE_LIMITED' });
    expect((limited as RateLimitError).retryAfter).toBeGreaterThan(0);
  });
});
