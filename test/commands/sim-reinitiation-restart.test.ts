/**
 * `serve --sim` (the default demo) restarted with a `Pending` command that has no status URL: the
 * restarted command worker initiates it again, and its automaker is the in-process simulated
 * cloud, which must already listen when the worker's first pass runs. (A command left so by a
 * crash and one whose URL could not be stored are the same row; a trigger refusing the URL makes
 * the case deterministic without timing a kill, as status-url-after-answer.test.ts does.)
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REINITIATE_AFTER_MS } from '../../src/domain/initiation.js';
import { openStore } from '../../src/store/open-store.js';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { prepareProcessFleet, PROCESS_APP, processToken, processVins } from '../support/process-fleet.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { until } from '../support/until.js';
import { scaled } from '../support/timeouts.js';

const [VIN] = processVins('9BWSMRENTR', 1) as [string];
const TIMEOUT_S = 60;
const CLOUD_READY = 'simulated automaker cloud listening';

describe.each(DATABASE_KINDS)('serve --sim restarted with a command left without its status URL on %s', (kind) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let served: ServiceProcess | undefined;
  const serve = async () => {
    served = await startServiceProcess(['--sim', '--sim-backfill', '0', '--database', database.url, '--command-timeout', String(TIMEOUT_S)], env, CLOUD_READY);
    return served;
  };

  beforeAll(async () => {
    ({ database, env } = await prepareProcessFleet(kind, 'sim', [VIN]));
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    await database?.drop();
  });

  /** Runs `statement` on the test's own connection to the service's database. */
  async function withStore<T>(use: (db: ReturnType<typeof openStore>['db']) => Promise<T>): Promise<T> {
    const store = openStore(database.url, { poolSize: 1 });
    try {
      return await use(store.db);
    } finally {
      await store.close();
    }
  }
  const stored = (id: string) => withStore((db) => db.selectFrom('commands').select(['status', 'status_url', 'detail', 'created_at', 'updated_at', 'deadline_at']).where('id', '=', id).executeTakeFirstOrThrow());
  const refuseStatusUrls = () => withStore((db) => (kind === 'postgres'
    ? sql.raw(`create or replace function status_url_trigger() returns trigger language plpgsql as $$ begin raise exception 'status URL refused by the test'; return new; end $$;
      create trigger status_url_trigger before update of status_url on commands for each row execute function status_url_trigger()`).execute(db)
    : sql`create trigger status_url_trigger before update of status_url on commands begin select raise(abort, 'status URL refused by the test'); end`.execute(db)));
  const acceptStatusUrls = () => withStore((db) => sql.raw(kind === 'postgres' ? 'drop trigger status_url_trigger on commands' : 'drop trigger status_url_trigger').execute(db));

  it('when it restarts 15 s after such a command began, then the command is initiated again once the simulated cloud listens, on the first try, and ends Success', async () => {
    const first = await serve();
    const token = await processToken(first.url);
    await refuseStatusUrls();
    const res = await fetch(`${first.url}/vehicle-command`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-signature': sign(PROCESS_APP.sign, VIN, 'diagnostics') },
      body: JSON.stringify({ vin: VIN, command: 'diagnostics' }),
    });
    const { id } = (await res.json()) as { id: string };
    expect(res.status).toBe(200);
    await until('the status URL\'s write to fail', async () => first.output().includes('a command\'s status URL could not be stored'), 10_000, 20);
    await first.stop('SIGKILL');
    await acceptStatusUrls();
    expect(await stored(id)).toMatchObject({ status: 'Pending', status_url: null });
    // Restarted once the command counts as left by a crash: the worker's first pass takes it.
    const created = Number((await stored(id)).created_at);
    await new Promise((r) => setTimeout(r, Math.max(0, created + REINITIATE_AFTER_MS + 500 - Date.now())));

    const second = await serve();
    // The order of the start: the cloud listens before the workers' first pass can look for work.
    const lines = second.output().split('\n');
    const cloudAt = lines.findIndex((l) => l.includes(CLOUD_READY));
    await until('the workers to start', async () => second.output().includes('background workers started'), 10_000, 20);
    expect(cloudAt).toBeGreaterThanOrEqual(0);
    expect(second.output().split('\n').findIndex((l) => l.includes('background workers started'))).toBeGreaterThan(cloudAt);
    await until('the command to end', async () => (await stored(id)).status !== 'Pending', 30_000, 100);
    const row = await stored(id);
    expect(row.status, `${row.detail}\n${second.output()}`).toBe('Success');
    expect(JSON.parse(row.detail)).toHaveProperty('odometer');
    expect(Number(row.updated_at)).toBeLessThan(Number(row.deadline_at));
    // Its one repeat reached the cloud: no failed try before the cloud listened.
    expect(second.output()).toContain('a command left without its status URL was initiated again');
    expect(second.output()).not.toContain('could not be initiated again');
  }, scaled(75_000));
});
