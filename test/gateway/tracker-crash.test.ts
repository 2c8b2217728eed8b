/**
 * A tracker's records are acknowledged only once stored: a service killed with SIGKILL while
 * trackers are sending has every record it acknowledged, and whatever was in flight is resent by
 * the trackers (stored once).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TeltonikaTrackerClient } from '../../src/gateway/teltonika/simulated-client.js';
import { openStore } from '../../src/store/open-store.js';
import { encodeTcpPacket } from '../../src/gateway/teltonika/encode.js';
import { CODEC_8E } from '../../src/gateway/teltonika/avl-record.js';
import { sql } from 'kysely';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { BIN, serveEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { avlRecord, trackerFleet } from '../support/tracker-fleet.js';
import { scaled } from '../support/timeouts.js';

const TRACKERS = Array.from({ length: 5 }, (_, i) => ({ vin: `9BWKLL0000000000${i}`, imei: `35630704244200${i}` }));

describe.each(DATABASE_KINDS)('trackers and a killed service on %s', (kind) => {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-tracker-crash-'));
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let served: ServiceProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    env = serveEnv(kind);
    const fleet = trackerFleet();
    for (const t of TRACKERS) fleet.companies[1]!.vehicles.push({ vin: t.vin, plate: 'KIL', oem: 'trackers', model: 'M', year: 2020, device: { protocol: 'teltonika', id: t.imei } });
    const file = join(dir, 'fleet.json');
    writeFileSync(file, JSON.stringify(fleet));
    const cli = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, ...args, '--database', database.url], { env });
    await cli('migrate');
    await cli('admin', 'apply', file);
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async () => {
    served = await startServiceProcess(['--database', database.url, '--no-sim', '--teltonika-port', '0'], env, 'Teltonika trackers: TCP and UDP listening');
    return Number(/"port":(\d+)[^\n]*Teltonika trackers/.exec(served.output())![1]);
  };

  it('when the store cannot take a packet, then no ack goes out, and a kill then loses nothing that was acknowledged', async () => {
    const port = await serve();
    const [t] = TRACKERS;
    const client = new TeltonikaTrackerClient({ host: '127.0.0.1', port, imei: t!.imei, responseTimeoutMs: scaled(5000) });
    await client.connect();
    // Another connection holds the telemetry table's write lock in an open transaction.
    const holder = openStore(database.url, { poolSize: 1 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => { release = resolve; });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => { locked = resolve; });
    const holding = holder.db.transaction().execute(async (trx) => {
      if (kind === 'postgres') await sql`lock table telemetry in exclusive mode`.execute(trx);
      else await sql`delete from telemetry where vin = 'none'`.execute(trx); // takes SQLite's write lock
      locked();
      await released;
    });
    await isLocked;
    try {
      expect(await client.sendExpectingNoAck(encodeTcpPacket(CODEC_8E, [avlRecord(Date.now() - 60_000)]), 700)).toBe(true);
      await served!.stop('SIGKILL');
      served = undefined;
    } finally {
      release();
      await holding;
      await holder.close();
    }
    client.close();
    // Not acknowledged, and not stored: the tracker still holds it and sends it again.
    const check = openStore(database.url, { poolSize: 1 });
    expect((await check.db.selectFrom('telemetry').select('ts').where('vin', '=', t!.vin).execute()).length).toBe(0);
    await check.close();
  });

  it('when the service is killed while five trackers send, then every acknowledged record is stored', async () => {
    const port = await serve();
    const start = Date.now() - 6 * 86_400_000; // room for 500,000 one-second instants before "now"
    const acknowledged = new Map<string, number>();
    /** Each tracker's packet that got no ack when the service died: a device sends it again. */
    const unacknowledged = new Map<string, ReturnType<typeof avlRecord>[]>();
    const packetOf = (n: number, packet: number) => Array.from({ length: 10 }, (_, i) => avlRecord(start + (packet * 10 + i) * 1000 + n, { speed: 10 }));
    const senders = TRACKERS.map(async (t, n) => {
      const client = new TeltonikaTrackerClient({ host: '127.0.0.1', port, imei: t.imei, responseTimeoutMs: scaled(5000) });
      await client.connect();
      for (let packet = 0; ; packet += 1) {
        const records = packetOf(n, packet);
        try {
          acknowledged.set(t.vin, (acknowledged.get(t.vin) ?? 0) + await client.send(records));
        } catch {
          unacknowledged.set(t.vin, records);
          return; // the service is gone
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await served!.stop('SIGKILL');
    served = undefined;
    await Promise.all(senders);

    const stored = async (vin: string) => {
      const store = openStore(database.url, { poolSize: 1 });
      try {
        return (await store.db.selectFrom('telemetry').select('ts').where('vin', '=', vin).execute()).length;
      } finally {
        await store.close();
      }
    };
    for (const t of TRACKERS) {
      expect(acknowledged.get(t.vin), t.vin).toBeGreaterThan(0);
      expect(await stored(t.vin), t.vin).toBeGreaterThanOrEqual(acknowledged.get(t.vin)!);
    }

    // Restarted, each tracker sends its unacknowledged packet again: acknowledged, and stored once.
    const again = await serve();
    for (const t of TRACKERS) {
      const client = new TeltonikaTrackerClient({ host: '127.0.0.1', port: again, imei: t.imei, responseTimeoutMs: scaled(5000) });
      await client.connect();
      expect(await client.send(unacknowledged.get(t.vin)!)).toBe(10);
      expect(await client.send(unacknowledged.get(t.vin)!)).toBe(10);
      client.close();
      expect(await stored(t.vin), t.vin).toBe(acknowledged.get(t.vin)! + 10);
    }
  });
});
