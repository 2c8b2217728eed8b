/**
 * Each worker as the periodic loop runs it: the pacing it had before the loop was shared (command
 * polling 250 ms idle / back to back after a full batch / 1 s after a failure, trips every 5 s with the
 * retention sweep at most every 10 minutes, telemetry retention and key expiry hourly).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { CommandWorker } from '../../src/commands/command-worker.js';
import { idempotencyKeyExpiryWorker } from '../../src/commands/idempotent-creation.js';
import { loadConfig } from '../../src/config/load-config.js';
import { tripSettingsOf } from '../../src/config/component-settings.js';
import { telemetryRetentionWorker } from '../../src/ingest/telemetry-retention.js';
import { ConnectorRegistry } from '../../src/oem/connector-registry.js';
import { insertTrips } from '../../src/store/trips-queries.js';
import { tripDetectionWorker } from '../../src/trips/trip-worker.js';
import { VehicleShardLease } from '../../src/workers/vehicle-shard-lease.js';
import { commandClient } from '../support/command-client.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });
const oldTrip = (endTs: number) => ({
  startTs: endTs - 600_000, endTs, durationSeconds: 600, distanceKm: 5, avgSpeedKmh: 30, maxSpeedKmh: 50,
  startOdometer: 1, endOdometer: 6, avgFuelConsumption: null, startLatitude: null, startLongitude: null, endLatitude: null, endLongitude: null,
});

describe('worker pacing', () => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService('sqlite'); });
  afterAll(async () => { await svc?.close(); });

  it('when the service starts its workers, then each keeps its interval', () => {
    const commands = new CommandWorker(svc.store, new ConnectorRegistry({ initiateTimeoutMs: 1, pollTimeoutMs: 1 }), svc.clock, undefined, silent).periodicWorker();
    expect(commands).toMatchObject({ name: 'command polling', intervalMs: 250, busyIntervalMs: 0, retryAfterMs: 1000 });
    expect(tripDetectionWorker(svc.store, svc.clock, tripSettingsOf(loadConfig({}, {})), new VehicleShardLease(svc.store, silent), silent)).toMatchObject({ name: 'trip detection', intervalMs: 5000 });
    expect(telemetryRetentionWorker(svc.store, svc.clock, 192 * 3_600_000, silent)).toMatchObject({ name: 'telemetry retention', intervalMs: 3_600_000 });
    expect(idempotencyKeyExpiryWorker(svc.store, svc.clock, silent)).toMatchObject({ name: 'idempotency key expiry', intervalMs: 3_600_000 });
  });

  it('when a command pass claims a full batch, then it asks for the next pass at once, and not when it claimed fewer or none', async () => {
    const worker = new CommandWorker(svc.store, svc.connectors, svc.clock, { leaseMs: 15_000, batch: 2, idleIntervalMs: 250 }, silent).periodicWorker();
    expect(await worker.runOnce()).toEqual({ more: false });
    await svc.useSimulatedCloud();
    const client = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    for (let i = 0; i < 3; i++) expect((await client.send({ vin: ALPHA_VINS[0], command: 'diagnostics' })).body.status).toBe('Pending');
    svc.clock.advance(2000);
    expect(await worker.runOnce()).toEqual({ more: true });
    // One left: a pass that claims less than a batch waits the idle interval, and the next
    // pass takes what fell due meanwhile together.
    expect(await worker.runOnce()).toEqual({ more: false });
    const polled = await svc.store.db.selectFrom('commands').select(['status', 'poll_attempts', 'next_poll_at']).execute();
    expect(polled).toHaveLength(3);
    for (const command of polled) expect(command.status === 'Success' || (command.poll_attempts === 1 && command.next_poll_at !== null)).toBe(true);
    expect(await worker.runOnce()).toEqual({ more: false });
  });

  it('when trip passes follow each other, then trips past retention are swept on the first and then at most every 10 minutes', async () => {
    const worker = tripDetectionWorker(svc.store, svc.clock, tripSettingsOf(loadConfig({}, {})), new VehicleShardLease(svc.store, silent), silent);
    const oldTrips = async () => (await svc.store.db.selectFrom('trips').select('end_ts').where('vin', '=', ALPHA_VINS[0]).execute()).length;
    await insertTrips(svc.store.db, ALPHA_VINS[0], [oldTrip(T0 - 91 * DAY)], T0);
    await worker.runOnce();
    expect(await oldTrips()).toBe(0);

    await insertTrips(svc.store.db, ALPHA_VINS[0], [oldTrip(T0 - 92 * DAY)], T0);
    svc.clock.advance(5000);
    await worker.runOnce();
    expect(await oldTrips()).toBe(1);
    svc.clock.advance(10 * 60_000 - 5000);
    await worker.runOnce();
    expect(await oldTrips()).toBe(0);
  });
});
