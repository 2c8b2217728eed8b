/**
 * Two service instances (each its own pool and worker) on one PostgreSQL database share the
 * commands queue: each command is polled by one instance at a time and finished exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { CommandWorker } from '../../src/commands/command-worker.js';
import { ConnectorRegistry } from '../../src/oem/connector-registry.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreConnection } from '../../src/store/connection.js';
import type { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { commandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { scaled } from '../support/timeouts.js';

const COMMANDS = 200;

describe.runIf(process.env.TEST_DATABASE_URL)('two instances on one PostgreSQL database', () => {
  let svc: TestService;
  let cloud: SimulatedOemCloud;
  let second: StoreConnection;

  beforeAll(async () => {
    svc = await startTestService('postgres');
    svc.clock.now = () => Date.now();
    ({ cloud } = await svc.useSimulatedCloud({ latencyMs: [100, 600], faults: { statusDelayMs: 15 } }));
    second = openStore(svc.databaseUrl, { poolSize: 5 });
  });
  afterAll(async () => {
    await second?.close();
    await svc?.close();
  });

  it(`when ${COMMANDS} commands are followed by two instances, then each is polled by one at a time and finished exactly once`, async () => {
    const client = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    const ids: string[] = [];
    for (let i = 0; i < COMMANDS; i += 1) {
      const res = await client.send({ vin: ALPHA_VINS[i % 2], command: i % 3 === 0 ? 'lock_doors' : 'diagnostics' });
      expect(res.body.status).toBe('Pending');
      ids.push(res.body.id);
    }
    const settings = { leaseMs: 15_000, batch: 10, idleIntervalMs: 20 };
    const workers = [
      new CommandWorker(svc.store, new ConnectorRegistry(svc.connectorSettings), svc.clock, settings),
      new CommandWorker(second, new ConnectorRegistry(svc.connectorSettings), svc.clock, settings),
    ];
    const finished = [0, 0];
    const deadline = Date.now() + scaled(60_000);
    const pending = async () => Number((await svc.store.db.selectFrom('commands').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'Pending').executeTakeFirstOrThrow()).n);
    await Promise.all(workers.map(async (worker, i) => {
      while (Date.now() < deadline && (await pending()) > 0) {
        const pass = await worker.runOnce();
        // A pass never takes more than its batch (the claim's selection runs once).
        expect(pass.claimed).toBeLessThanOrEqual(settings.batch);
        finished[i]! += pass.finished;
        if (pass.claimed === 0) await new Promise((r) => setTimeout(r, 20));
      }
    }));
    const rows = await svc.store.db.selectFrom('commands').select(['id', 'status']).where('id', 'in', ids).execute();
    expect(rows.filter((r) => r.status === 'Success')).toHaveLength(COMMANDS);
    expect(finished[0]! + finished[1]!).toBe(COMMANDS);
    expect(finished[0]).toBeGreaterThan(0);
    expect(finished[1]).toBeGreaterThan(0);
    expect(cloud.overlappingPolls).toBe(0);
    for (const id of ids) expect(cloud.received.filter((r) => r.id === id)).toHaveLength(1);
  }, scaled(90_000));

  it('when a pass polls several commands, then their outcomes are written in one transaction', async () => {
    const client = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push((await client.send({ vin: ALPHA_VINS[i % 2], command: 'diagnostics' })).body.id as string);
    // Past the first poll (1 s) and the simulated vehicles' latency (at most 600 ms).
    await new Promise((r) => setTimeout(r, 1800));
    const worker = new CommandWorker(svc.store, new ConnectorRegistry(svc.connectorSettings), svc.clock, { leaseMs: 15_000, batch: 10, idleIntervalMs: 20 });
    const pass = await worker.runOnce();
    expect(pass).toMatchObject({ claimed: 6, finished: 6 });
    // Rows written by one transaction carry its id as xmin: each poll answered on its own socket
    // (15 ms late), yet one commit.
    const { rows } = await sql<{ xmin: string }>`select distinct xmin::text as xmin from commands where id in (${sql.join(ids)})`.execute(svc.store.db);
    expect(rows).toHaveLength(1);
  });
});
