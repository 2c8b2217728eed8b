/**
 * The per-role NATS permissions docs/scaling.md recommends, run for real: nats-server starts with
 * the `authorization` block copied from the page, an edge user queues records and a writers user
 * stores them through it, and the writers' user is refused when it publishes telemetry.
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestQueue } from '../../src/queue/ingest-queue.js';
import { subjectOf } from '../../src/queue/ingest-streams.js';
import { startTelemetryWriters, type RunningWriters } from '../../src/queue/telemetry-writers.js';
import { toTelemetryRow } from '../../src/store/telemetry/insert.js';
import { ALPHA_VINS } from '../support/fixture-fleet.js';
import { startNatsServers, testQueueSettings, type NatsServers } from '../support/nats-servers.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { until } from '../support/until.js';
import { scaled } from '../support/timeouts.js';

const silent = pino({ level: 'silent' });

/** The nats-server block of "Securing the queue", as the page shows it. */
function documentedAuthorization(): string {
  const page = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
  const block = /\*\*Permissions\*\*[\s\S]*?```\n([\s\S]*?)```/.exec(page);
  if (!block) throw new Error('docs/scaling.md has no permissions block');
  return block[1]!;
}

describe('the documented NATS permissions', () => {
  let nats: NatsServers;
  let svc: TestService;
  let edge: IngestQueue | undefined;
  let writersQueue: IngestQueue | undefined;
  let writers: RunningWriters | undefined;
  const settings = (user: string, password: string) => testQueueSettings(nats.nodes[0]!.url, { partitions: 2, auth: { kind: 'password', user, password } });

  beforeAll(async () => {
    // The block reads the passwords from the environment, as a deployment would.
    process.env.EDGE_PASSWORD = 'edge-pw';
    process.env.WRITERS_PASSWORD = 'writers-pw';
    nats = await startNatsServers(1, documentedAuthorization());
    svc = await startTestService('sqlite');
  }, scaled(60_000));
  afterAll(async () => {
    await writers?.stop();
    await writersQueue?.close();
    await edge?.close();
    await svc?.close();
    await nats?.close();
    delete process.env.EDGE_PASSWORD;
    delete process.env.WRITERS_PASSWORD;
  });

  it('when an edge and the writers use their users, then records queued by the edge are stored by the writers, and the writers cannot publish telemetry', async () => {
    edge = await IngestQueue.open(settings('edge', 'edge-pw'), silent);
    const rows = ALPHA_VINS.map((vin) => toTelemetryRow({ vin, ts: T0 - 60_000, values: { speed: 10 }, flag: null }, T0));
    await edge.write([{ source: { kind: 'oem', oem: 'simmotors' }, rows: rows.slice(0, 2) }], T0);

    writersQueue = await IngestQueue.open(settings('writers', 'writers-pw'), silent);
    writers = await startTelemetryWriters(writersQueue, svc.store, svc.clock, { retentionMs: 192 * 3_600_000, tripLatenessMs: 60_000 }, silent);
    const count = async () => (await svc.store.db.selectFrom('telemetry').select('vin').execute()).length;
    await until('the edge\'s records stored', async () => (await count()) === 2);

    await expect(writersQueue.js.publish(subjectOf(0), '{"rows":[]}', { timeout: 2000 })).rejects.toThrow(/Permissions Violation for Publish to "telematics.ingest.0"/);
  }, scaled(60_000));
});
