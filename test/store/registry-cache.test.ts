import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApplicationEnabled } from '../../src/registry/manage-applications.js';
import { cachedRegistryRead } from '../../src/store/registry-cache.js';
import { RegistryChanges, registryWritesPlugin } from '../../src/store/registry-changes.js';
import { openStore, withStoreState } from '../../src/store/open-store.js';
import { RegistryCacheTables } from '../../src/store/registry-cache-tables.js';
import { updateVehicle } from '../../src/store/registry-queries.js';
import { connectSqlite } from '../../src/store/sqlite/connect-sqlite.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { Kysely, SqliteDialect } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { authenticateBearer } from '../../src/auth/authenticate-bearer.js';
import { TrackerLookup } from '../../src/gateway/tracker-lookup.js';
import { createLogger } from '../../src/logger.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { countedStore } from '../support/statement-count.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { scaled } from '../support/timeouts.js';

describe('registry cache', () => {
  const fakeStore = (changes: RegistryChanges) => ({ registryChanges: changes, registryCache: new RegistryCacheTables() }) as unknown as StoreConnection;

  it('when changes are live and nothing changed, then the second read is served from the cache', async () => {
    const changes = new RegistryChanges();
    changes.setLive(true);
    const store = fakeStore(changes);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    expect(await cachedRegistryRead(store, 'k', load)).toEqual({ n: 1 });
    expect(await cachedRegistryRead(store, 'k', load)).toEqual({ n: 1 });
    changes.changed();
    expect(await cachedRegistryRead(store, 'k', load)).toEqual({ n: 2 });
  });

  it('when changes are not live (no listener, or it is down), then every read goes to the database', async () => {
    const changes = new RegistryChanges();
    const store = fakeStore(changes);
    let loads = 0;
    for (let i = 0; i < 3; i += 1) await cachedRegistryRead(store, 'k', async () => ++loads);
    expect(loads).toBe(3);
    const sqlite = withStoreState(connectSqlite(':memory:'));
    for (let i = 0; i < 2; i += 1) await cachedRegistryRead(sqlite, 'k', async () => ++loads);
    expect(loads).toBe(5);
    await sqlite.close();
  });

  it('when the registry changes while a read is in flight, then that read is returned but not kept', async () => {
    const changes = new RegistryChanges();
    changes.setLive(true);
    const store = fakeStore(changes);
    let loads = 0;
    await cachedRegistryRead(store, 'k', async () => { loads += 1; changes.changed(); return 'old'; });
    expect(await cachedRegistryRead(store, 'k', async () => { loads += 1; return 'new'; })).toBe('new');
    expect(loads).toBe(2);
  });

  it('when this process writes a registry table through Kysely, then the generation moves before and after; other tables leave it alone', async () => {
    const changes = new RegistryChanges();
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }), plugins: [registryWritesPlugin(changes)] });
    await db.schema.createTable('applications').addColumn('id', 'text').execute();
    await db.schema.createTable('telemetry').addColumn('id', 'text').execute();
    const g0 = changes.generation;
    await db.insertInto('telemetry').values({ id: 'x' }).execute();
    await db.selectFrom('applications').selectAll().execute();
    expect(changes.generation).toBe(g0);
    await db.insertInto('applications').values({ id: 'a' }).execute();
    expect(changes.generation).toBe(g0 + 2);
    await db.updateTable('applications as a').set({ id: 'b' }).execute();
    await db.deleteFrom('applications').execute();
    expect(changes.generation).toBe(g0 + 6);
    await db.destroy();
  });
});

describe('registry cache on SQLite, changed through another connection', () => {
  it('when another connection commits, then a cached read a millisecond later loads again; without commits it stays cached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'telematics-registry-'));
    const store = withStoreState(connectSqlite(join(dir, 'r.db'), true));
    const other = new BetterSqlite3(join(dir, 'r.db'));
    try {
      expect(store.registryChanges?.live).toBe(true);
      let loads = 0;
      const read = () => cachedRegistryRead(store, 'k', async () => ++loads);
      await read();
      await read();
      expect(loads).toBe(1);
      other.exec('create table t (n integer)');
      other.prepare('insert into t values (1)').run();
      await new Promise((r) => setTimeout(r, 2)); // the probe looks at most once a millisecond
      await read();
      expect(loads).toBe(2);
      await read();
      expect(loads).toBe(2);
    } finally {
      other.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('registry cache on PostgreSQL, changed by another process', () => {
  let svc: TestService;
  let other: StoreConnection;
  let token: string;
  beforeAll(async () => {
    svc = await startTestService('postgres');
    // A second pool without the plugin stands for `telematics admin` in another process: only
    // LISTEN/NOTIFY can tell the service about its writes.
    other = openStore(svc.databaseUrl, { poolSize: 1 });
    token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    for (let i = 0; i < 50 && !svc.store.registryChanges?.live; i += 1) await new Promise((r) => setTimeout(r, 20));
  });
  afterAll(async () => {
    await other?.close();
    await svc?.close();
  });

  const vehicle = async () => svc.request('GET', `/vehicle/${ALPHA_VINS[0]}`, { headers: { authorization: `Bearer ${token}` } });

  async function eventually(check: () => Promise<boolean>): Promise<number> {
    const t0 = Date.now();
    while (!(await check())) {
      if (Date.now() - t0 > 2000) throw new Error('change not seen within 2 s');
      await new Promise((r) => setTimeout(r, 5));
    }
    return Date.now() - t0;
  }

  it('when a vehicle is changed elsewhere, then the service shows the change within milliseconds', async () => {
    expect(svc.store.registryChanges?.live).toBe(true);
    expect((await vehicle()).body).toMatchObject({ plate: expect.any(String) });
    await vehicle(); // cached now
    await updateVehicle(other.db, ALPHA_VINS[0], { plate: 'NEW1A23' });
    expect(await eventually(async () => (await vehicle()).body.plate === 'NEW1A23')).toBeLessThan(1000);
  });

  it('when the application is disabled elsewhere, then its token is refused within milliseconds', async () => {
    expect((await vehicle()).status).toBe(200);
    await setApplicationEnabled(other.db, 'alpha-dispatch', false, svc.clock.now());
    expect(await eventually(async () => (await vehicle()).status === 401)).toBeLessThan(1000);
  });
});

describe.each(DATABASE_KINDS)('registry cache under lookups of unknown names on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(kind);
    for (let i = 0; i < 50 && !svc.store.registryChanges?.live; i += 1) await new Promise((r) => setTimeout(r, 20));
  });
  afterAll(async () => { await svc?.close(); });

  it('when 20,000 unknown tracker ids are looked up, then the application a token names is still read from the cache, and a refused id tried again costs no query', async () => {
    // The service's own database, its statements counted; the counted connection has a registry
    // cache of its own, which the tracker lookup and the authentication share, as they share the service's.
    const counted = countedStore(svc.store);
    const header = `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}`;
    const authenticate = () => authenticateBearer(counted.store, svc.keyring, svc.tokenSettings, header, svc.clock.now());
    const lookup = new TrackerLookup(counted.store, svc.clock, createLogger('silent'), { lastKnownDuringOutage: false });
    expect(await authenticate()).toHaveProperty('principal');
    counted.reset();
    await authenticate();
    expect(counted.statements).toEqual([]);

    const ids = Array.from({ length: 20_000 }, (_, i) => `35${String(i).padStart(13, '0')}`);
    for (let i = 0; i < ids.length; i += 200) {
      expect(await Promise.all(ids.slice(i, i + 200).map((id) => lookup.find('teltonika', id)))).toEqual(Array(Math.min(200, ids.length - i)).fill(undefined));
    }
    expect(counted.statements).toHaveLength(20_000); // one indexed query per new id
    counted.reset();
    expect(await authenticate()).toHaveProperty('principal');
    expect(await lookup.find('teltonika', ids.at(-1)!)).toBeUndefined();
    expect(counted.statements).toEqual([]);
  }, scaled(120_000));
});
