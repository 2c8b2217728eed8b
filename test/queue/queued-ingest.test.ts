/**
 * Queued ingest with real processes: `serve --role api --ingest-queue` (the edge) and
 * `serve --role writers` on one database, a real `nats-server` with JetStream between them, on
 * SQLite and PostgreSQL. The edge answers 200 only once the queue holds the records (with no
 * writer running they are still kept, and stored when one starts), 503 with Retry-After when the
 * queue cannot take them (down, or full), and keeps accepting while the database is away; every
 * record answered 200 ends up stored exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { startNatsServers, type NatsServers } from '../support/nats-servers.js';
import { PROCESS_APP, prepareProcessFleet, processVins } from '../support/process-fleet.js';
import { startServiceProcess, startUnlistenedServiceProcess, type ServiceProcess, type UnlistenedServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';
import { scaled } from '../support/timeouts.js';

const VINS = processVins('9BWJSTRM', 6);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` records per VIN, one a second, ending a minute ago, starting at second `from`. */
function records(count: number, from = 0) {
  const end = Math.floor(Date.now() / 1000) * 1000 - 60_000;
  return VINS.flatMap((vin) => Array.from({ length: count }, (_, i) => ({
    vin, date_time: new Date(end - (from + i) * 1000).toISOString(), speed: 30 + (i % 7), latitude: -23.5 + i * 1e-5, longitude: -46.6, odometer: 1000 + i * 0.01,
  })));
}

async function ingest(url: string, body: unknown): Promise<{ status: number; body: any; retryAfter: string | null }> {
  const res = await fetch(`${url}/ingest/cloudmotors`, {
    method: 'POST', headers: { authorization: `Bearer ${PROCESS_APP.ingestKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: body }),
  });
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').at(-1));
  return sum;
}

describe.each(DATABASE_KINDS)('queued ingest through NATS JetStream (%s)', (kind) => {
  let nats: NatsServers;
  let cloud: SimulatedOemCloud;
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let store: StoreConnection;
  let proxy: TcpProxy | undefined;
  let databaseUrl: string;
  let edge: ServiceProcess | undefined;
  let writers: UnlistenedServiceProcess | undefined;
  const queueArgs = () => ['--ingest-queue', nats.urls, '--ingest-queue-partitions', '3', '--ingest-queue-publish-timeout', '2s', '--ingest-queue-ack-wait', '5s'];
  const stored = async () => Number((await store.db.selectFrom('telemetry').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);
  const startWriters = () => startUnlistenedServiceProcess(['--role', 'writers', '--database', databaseUrl, ...queueArgs()], env, 'telemetry writers taking');

  beforeAll(async () => {
    nats = await startNatsServers(1);
    cloud = new SimulatedOemCloud(() => undefined, systemClock, { latencyMs: [100, 200], seed: 1, apiKey: null });
    await cloud.listen();
    ({ database, env } = await prepareProcessFleet(kind, cloud.url, VINS));
    store = openStore(database.url, { poolSize: 2 });
    databaseUrl = database.url;
    if (kind === 'postgres') {
      // Both processes reach PostgreSQL through a proxy the test can cut: a database outage.
      const direct = new URL(database.url);
      proxy = new TcpProxy(direct.hostname, Number(direct.port || 5432));
      const proxied = new URL(database.url);
      proxied.port = String(await proxy.listen());
      databaseUrl = proxied.toString();
    }
    edge = await startServiceProcess(['--role', 'api', '--database', databaseUrl, ...queueArgs()], env);
  }, scaled(60_000));
  afterAll(async () => {
    await edge?.stop('SIGKILL');
    await writers?.stop('SIGKILL');
    await store?.close();
    await proxy?.close();
    await cloud?.close();
    await database?.drop();
    await nats?.close();
  });

  it('when no writer runs, then ingest is answered 200 and kept in the queue; a writer started later stores every record once', async () => {
    const batch = records(50);
    const first = await ingest(edge!.url, batch);
    expect(first).toMatchObject({ status: 200, body: { accepted: batch.length, rejected: [] } });
    // Sent again (an automaker retrying after a timeout): answered alike, recognised as the same messages.
    expect((await ingest(edge!.url, batch)).status).toBe(200);
    const refused = await ingest(edge!.url, [{ vin: 'NOTREGISTERED00001', date_time: batch[0]!.date_time, speed: 1 }]);
    expect(refused.body.rejected).toHaveLength(1);
    await sleep(300);
    expect(await stored()).toBe(0);
    expect(await metric(edge!.url, 'ingest_queue_messages')).toBeGreaterThan(0);
    expect(await metric(edge!.url, 'ingest_queue_published_records_total')).toBe(batch.length);
    expect(await metric(edge!.url, 'ingest_queue_duplicate_records_total')).toBe(batch.length);
    expect(await metric(edge!.url, 'ingest_queue_stream_ready')).toBe(3);

    writers = await startWriters();
    await until('every record stored', async () => (await stored()) === batch.length);
    await until('the queue drained', async () => (await metric(edge!.url, 'ingest_queue_messages')) === 0);
    await sleep(500);
    expect(await stored()).toBe(batch.length);
  }, scaled(60_000));

  it('when the queue is down, then ingest answers 503 with Retry-After within the publish timeout and /readyz fails; once it is back, ingest resumes', async () => {
    const before = await stored();
    const server = nats.nodes[0]!;
    await server.kill();
    const started = Date.now();
    const down = await ingest(edge!.url, records(5, 100));
    expect(down).toMatchObject({ status: 503, body: { detail: 'Service temporarily unavailable.' }, retryAfter: '5' });
    expect(Date.now() - started).toBeLessThan(4000);
    expect((await fetch(`${edge!.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${edge!.url}/healthz`)).status).toBe(200);

    await server.restart();
    await until('the edge is ready again', async () => (await fetch(`${edge!.url}/readyz`)).status === 200);
    const batch = records(5, 100);
    await until('ingest accepted again', async () => (await ingest(edge!.url, batch)).status === 200);
    await until('the writers stored it', async () => (await stored()) === before + batch.length);
  }, scaled(60_000));

  it.runIf(kind === 'postgres')('when the database is away, then the edge still answers 200 and stays ready; the writers store everything once it is back', async () => {
    const before = await stored();
    await proxy!.cut();
    const batch = records(20, 200);
    const during = await ingest(edge!.url, batch);
    expect(during).toMatchObject({ status: 200, body: { accepted: batch.length, rejected: [] } });
    expect((await fetch(`${edge!.url}/readyz`)).status).toBe(200);
    await sleep(1500);
    expect(await stored()).toBe(before);
    await proxy!.restore();
    await until('stored after the outage', async () => (await stored()) === before + batch.length, 40_000);
  }, scaled(60_000));
});

describe('a full ingest queue', () => {
  let nats: NatsServers;
  let cloud: SimulatedOemCloud;
  let database: TestDatabase;
  let edge: ServiceProcess | undefined;

  beforeAll(async () => {
    nats = await startNatsServers(1);
    cloud = new SimulatedOemCloud(() => undefined, systemClock, { latencyMs: [100, 200], seed: 1, apiKey: null });
    await cloud.listen();
    const fleet = await prepareProcessFleet('sqlite', cloud.url, VINS);
    database = fleet.database;
    edge = await startServiceProcess(['--role', 'api', '--database', database.url, '--ingest-queue', nats.urls, '--ingest-queue-partitions', '1', '--ingest-queue-max-size', '16'], fleet.env);
  }, scaled(60_000));
  afterAll(async () => {
    await edge?.stop('SIGKILL');
    await cloud?.close();
    await database?.drop();
    await nats?.close();
  });

  it('when no writer drains it and it reaches its size, then ingest answers 503 with a longer Retry-After instead of dropping anything', async () => {
    let answer: Awaited<ReturnType<typeof ingest>> | undefined;
    let accepted = 0;
    for (let round = 0; round < 200; round++) {
      answer = await ingest(edge!.url, records(800, round * 800));
      if (answer.status !== 200) break;
      accepted += answer.body.accepted;
    }
    expect(accepted).toBeGreaterThan(10_000);
    expect(answer).toMatchObject({ status: 503, body: { detail: 'Service temporarily unavailable.' }, retryAfter: '30' });
    expect(await metric(edge!.url, 'ingest_queue_refused_total')).toBeGreaterThan(0);
  }, scaled(120_000));
});
