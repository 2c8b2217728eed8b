/**
 * A creation answers `Pending` once the automaker has given its status URL, and stores that URL
 * after the answer (create-command.ts): the answer does not wait for its commit, a failed write
 * never fails the request, and the worker polls the command once the URL lands. A command whose
 * URL was never stored (a failed write here; a crash in initiation-window.test.ts) is initiated
 * again with the same Idempotency-Key by one worker, 15 s after its initiation began, and not
 * before: a command still inside its request is left to it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CommandWorker } from '../../src/commands/command-worker.js';
import { REINITIATE_AFTER_MS } from '../../src/domain/initiation.js';
import { ConnectorRegistry } from '../../src/oem/connector-registry.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { openStore } from '../../src/store/open-store.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { sign } from '../support/command-client.js';
import { freePort } from '../support/free-port.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { backgroundWritesSettled } from '../../src/store/write-batcher.js';

const VIN = ALPHA_VINS[0];

describe.each(DATABASE_KINDS)('a creation\'s status URL, stored after its answer, on %s', (kind) => {
  let svc: TestService;
  let token: string;
  let cloud: SimulatedOemCloud;
  /** A second instance's worker, on its own connection to the same database. */
  let second: StoreConnection;
  let secondWorker: CommandWorker;

  beforeAll(async () => {
    svc = await startTestService(kind);
    ({ cloud } = await svc.useSimulatedCloud({ latencyMs: [0, 0] }));
    token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    second = openStore(svc.databaseUrl, { poolSize: 2 });
    secondWorker = new CommandWorker(second, new ConnectorRegistry(svc.connectorSettings), svc.clock, { leaseMs: 15_000, batch: 50, idleIntervalMs: 50 });
  });
  afterAll(async () => {
    await second?.close();
    await svc?.close();
  });
  beforeEach(async () => {
    await backgroundWritesSettled(svc.store);
    if (kind === 'postgres') await sql`drop trigger if exists status_url_trigger on commands`.execute(svc.store.db);
    else await sql`drop trigger if exists status_url_trigger`.execute(svc.store.db);
  });

  /** POST /vehicle-command as a client sends it, without waiting for anything after the answer. */
  const create = () => svc.request('POST', '/vehicle-command', {
    json: { vin: VIN, command: 'diagnostics' },
    headers: { authorization: `Bearer ${token}`, 'x-signature': sign(SECRETS.alphaDispatch.sign, VIN, 'diagnostics') },
  });
  const stored = (id: string) => svc.store.db.selectFrom('commands').select(['status', 'status_url', 'next_poll_at', 'detail']).where('id', '=', id).executeTakeFirstOrThrow();

  /** Every update that sets a status URL fails (`refuse`) or, on PostgreSQL, takes a second (`slow`). */
  async function triggerOnStatusUrl(behaviour: 'refuse' | 'slow') {
    if (kind === 'postgres') {
      const body = behaviour === 'refuse' ? `raise exception 'status URL refused by the test'` : 'perform pg_sleep(1)';
      await sql.raw(`create or replace function status_url_trigger() returns trigger language plpgsql as $$ begin ${body}; return new; end $$`).execute(svc.store.db);
      await sql`create trigger status_url_trigger before update of status_url on commands for each row execute function status_url_trigger()`.execute(svc.store.db);
    } else {
      if (behaviour === 'slow') throw new Error('SQLite triggers cannot wait');
      await sql`create trigger status_url_trigger before update of status_url on commands begin select raise(abort, 'status URL refused by the test'); end`.execute(svc.store.db);
    }
  }

  it('when the command is answered, then its status URL is stored soon after and the worker polls it to its outcome', async () => {
    const created = await create();
    expect(created.body).toMatchObject({ status: 'Pending' });
    await backgroundWritesSettled(svc.store);
    const row = await stored(created.body.id);
    expect(row.status_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(Number(row.next_poll_at)).toBe(svc.clock.now() + 1000);
    svc.clock.advance(1000);
    await svc.worker.runOnce();
    expect((await stored(created.body.id)).status).toBe('Success');
  });

  it.runIf(kind === 'postgres')('when storing the status URL takes a second, then the answer does not wait for it', async () => {
    await triggerOnStatusUrl('slow');
    const created = await create();
    expect(created.body).toMatchObject({ status: 'Pending' });
    // Had the answer waited for the commit, the URL would be there already.
    expect((await stored(created.body.id)).status_url).toBeNull();
    await backgroundWritesSettled(svc.store);
    expect((await stored(created.body.id)).status_url).not.toBeNull();
  });

  /** Leaves `id` as a failed write (or a crash) would: Pending, accepted by the automaker, no status URL. */
  async function createWithoutStatusUrl(): Promise<string> {
    await triggerOnStatusUrl('refuse');
    const logged = svc.logs.length;
    const created = await create();
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'Pending' });
    await backgroundWritesSettled(svc.store);
    const failure = svc.logs.slice(logged).map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'a command\'s status URL could not be stored: the command worker initiates it again (same Idempotency-Key) 15 s after it began');
    expect(failure).toMatchObject({ level: 50, commandId: created.body.id });
    expect(await stored(created.body.id)).toMatchObject({ status: 'Pending', status_url: null, next_poll_at: null });
    await sql`drop trigger ${sql.raw(kind === 'postgres' ? 'status_url_trigger on commands' : 'status_url_trigger')}`.execute(svc.store.db);
    return created.body.id;
  }

  const sentWithKey = (id: string) => cloud.received.filter((r) => r.id === id).map((r) => r.key);

  it('when the status URL cannot be stored, then the answer is still Pending, and 15 s after it began one of two instances initiates it again with the same Idempotency-Key and it ends Success, the vehicle having acted once', async () => {
    const id = await createWithoutStatusUrl();
    // Still within what its own request may take: neither instance sends it again.
    svc.clock.advance(REINITIATE_AFTER_MS);
    const early = await Promise.all([svc.worker.runOnce(), secondWorker.runOnce()]);
    expect(early.map((p) => p.reinitiated)).toEqual([0, 0]);
    expect(sentWithKey(id)).toEqual([id]);

    svc.clock.advance(1);
    const passes = await Promise.all([svc.worker.runOnce(), secondWorker.runOnce()]);
    expect(passes.map((p) => p.reinitiated).sort()).toEqual([0, 1]);
    expect(sentWithKey(id)).toEqual([id, id]);
    expect(cloud.accepted.filter((a) => a.id === id)).toHaveLength(1);
    expect(await stored(id)).toMatchObject({ status: 'Pending', status_url: `${cloud.url}/commands/${id}`, next_poll_at: svc.clock.now() + 1000 });
    svc.clock.advance(1000);
    await Promise.all([svc.worker.runOnce(), secondWorker.runOnce()]);
    await backgroundWritesSettled(svc.store);
    await backgroundWritesSettled(second);
    const row = await stored(id);
    expect(row.status).toBe('Success');
    expect(JSON.parse(row.detail)).toHaveProperty('odometer');
    expect(sentWithKey(id)).toHaveLength(2);
  });

  /** Points the service's connector at a port nobody listens on while `run` runs. */
  async function unreachable<T>(run: () => Promise<T>): Promise<T> {
    const { simCloudUrl: url, simCloudKey: key } = svc.connectorSettings;
    svc.useSimulatedCloudAt(`http://127.0.0.1:${await freePort()}`, key);
    try {
      return await run();
    } finally {
      svc.useSimulatedCloudAt(url, key);
    }
  }
  const failedRepeats = (from: number) => svc.logs.slice(from).filter((line) => line.includes('could not be initiated again')).length;

  it('when the automaker is unreachable at the repeated initiation and reachable again before the deadline, then the repeat is tried again with backoff and the command ends Success, the vehicle having acted once', async () => {
    const id = await createWithoutStatusUrl();
    const logged = svc.logs.length;
    await unreachable(async () => {
      svc.clock.advance(REINITIATE_AFTER_MS + 1);
      expect((await svc.worker.runOnce()).reinitiated).toBe(1);
      // Still Pending, not tried again before its backoff (1 s ± 20 %).
      expect(await stored(id)).toMatchObject({ status: 'Pending', status_url: null });
      svc.clock.advance(700);
      expect((await svc.worker.runOnce()).reinitiated).toBe(0);
    });
    expect(failedRepeats(logged)).toBe(1);
    svc.clock.advance(600);
    expect((await svc.worker.runOnce()).reinitiated).toBe(1);
    expect(await stored(id)).toMatchObject({ status: 'Pending', status_url: `${cloud.url}/commands/${id}` });
    svc.clock.advance(1000);
    await svc.worker.runOnce();
    await backgroundWritesSettled(svc.store);
    const read = await svc.request('GET', `/vehicle-command/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.body).toMatchObject({ status: 'Success' });
    expect(sentWithKey(id)).toEqual([id, id]);
    expect(cloud.accepted.filter((a) => a.id === id)).toHaveLength(1);
  });

  it('when the automaker stays unreachable, then the repeated initiation is tried with backoff until the deadline and the command ends as Command timeout.', async () => {
    const id = await createWithoutStatusUrl();
    const logged = svc.logs.length;
    const { deadline_at: deadline } = await svc.store.db.selectFrom('commands').select('deadline_at').where('id', '=', id).executeTakeFirstOrThrow();
    await unreachable(async () => {
      svc.clock.advance(REINITIATE_AFTER_MS + 1);
      while ((await stored(id)).status === 'Pending') {
        await svc.worker.runOnce();
        svc.clock.advance(2000);
        expect(svc.clock.now()).toBeLessThan(Number(deadline) + 10_000);
      }
    });
    await backgroundWritesSettled(svc.store);
    const read = await svc.request('GET', `/vehicle-command/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
    // 1, 2, 4, 8, then every 10 s over the ~105 s left: about a dozen tries, none past the deadline.
    expect(failedRepeats(logged)).toBeGreaterThanOrEqual(8);
    expect(failedRepeats(logged)).toBeLessThanOrEqual(16);
    expect(sentWithKey(id)).toEqual([id]);
  });

  it('when the automaker refuses the repeated initiation (it does not know the vehicle), then the command ends as Communication failures. at once', async () => {
    const id = await createWithoutStatusUrl();
    // Another automaker at the configured address, which knows no vehicle: 404 to the repeat.
    const stranger = new SimulatedOemCloud(() => undefined, svc.clock, { latencyMs: [0, 0], seed: 9, apiKey: null });
    const { simCloudUrl: url, simCloudKey: key } = svc.connectorSettings;
    svc.useSimulatedCloudAt(await stranger.listen(), key);
    try {
      svc.clock.advance(REINITIATE_AFTER_MS + 1);
      expect((await svc.worker.runOnce()).reinitiated).toBe(1);
    } finally {
      svc.useSimulatedCloudAt(url, key);
      await stranger.close();
    }
    await backgroundWritesSettled(svc.store);
    const read = await svc.request('GET', `/vehicle-command/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.body).toMatchObject({ status: 'Error', detail: 'Communication failures.' });
    expect(stranger.received.map((r) => r.key)).toEqual([id]);
  });

  it('when a command without its status URL is past its deadline, then it ends as Command timeout. and is not sent again', async () => {
    const id = await createWithoutStatusUrl();
    svc.clock.advance(121_000);
    await svc.worker.runOnce();
    const read = await svc.request('GET', `/vehicle-command/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
    expect(sentWithKey(id)).toEqual([id]);
    // The service goes on: the next command, with nothing refused, is stored and answered.
    const next = await create();
    await backgroundWritesSettled(svc.store);
    expect((await stored(next.body.id)).status_url).not.toBeNull();
  });
});
