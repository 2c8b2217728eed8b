/**
 * `serve --sim` (what `npm start` runs) killed with SIGKILL while commands are Pending (their
 * status URLs stored), then started again on the same database: its in-process simulated
 * automaker behaves like a real one whose cloud kept running. It listens where it did (the port
 * kept with the database) and knows the commands it accepted, so each one ends `Success` before
 * its deadline, initiated once.
 * When its port was taken meanwhile, it listens elsewhere and the commands pending at the old
 * address end in error, each with one log line saying why.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { prepareProcessFleet, PROCESS_APP, processToken, processVins } from '../support/process-fleet.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { statusUrlsStored } from '../support/status-urls-stored.js';
import { scaled } from '../support/timeouts.js';
import { until } from '../support/until.js';

const VINS = processVins('9BWSMRSTRT', 10);
const TIMEOUT_S = 60;
const CLOUD_READY = 'simulated automaker cloud listening';
const ACCEPTED = 'simulated automaker accepted a command';
/**
 * Each test's bound: its own waits (the accepted lines and the status URLs up to 10 s each, the
 * commands' end up to 30 s) and two starts add up past vitest's 30 s. A kill that lands while the
 * worker holds its lease on the commands (15 s, DEFAULT_WORKER_SETTINGS) leaves the restarted
 * worker waiting up to that long for it to lapse.
 */
const TEST_TIMEOUT_MS = scaled(75_000);

/** The JSON log lines of a process's output. */
function logLines(output: string): Record<string, unknown>[] {
  return output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const cloudUrlOf = (output: string) => logLines(output).find((l) => l.msg === CLOUD_READY)?.url as string | undefined;

describe.each(DATABASE_KINDS)('the in-process simulated automaker across a restart on %s', (kind) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let served: ServiceProcess | undefined;
  let blocker: Server | undefined;
  const outputs: string[] = [];
  const serve = async () => {
    served = await startServiceProcess(['--sim', '--sim-backfill', '0', '--database', database.url, '--command-timeout', String(TIMEOUT_S)], env, CLOUD_READY);
    return served;
  };

  beforeAll(async () => {
    ({ database, env } = await prepareProcessFleet(kind, 'sim', VINS));
  });
  afterAll(async () => {
    await served?.stop('SIGKILL');
    await new Promise((r) => (blocker ? blocker.close(r) : r(undefined)));
    await database?.drop();
  });

  /** Sends `diagnostics` to each VIN; every one must be Pending. */
  async function sendCommands(url: string, vins: readonly string[]): Promise<string[]> {
    const token = await processToken(url);
    return Promise.all(vins.map(async (vin) => {
      const res = await fetch(`${url}/vehicle-command`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-signature': sign(PROCESS_APP.sign, vin, 'diagnostics') },
        body: JSON.stringify({ vin, command: 'diagnostics' }),
      });
      const body = (await res.json()) as { id: string; status: string };
      expect({ status: res.status, state: body.status }).toEqual({ status: 200, state: 'Pending' });
      return body.id;
    }));
  }

  async function storedCommands(ids: readonly string[]) {
    const store = openStore(database.url, { poolSize: 1 });
    try {
      return await store.db.selectFrom('commands').select(['id', 'status', 'detail', 'updated_at', 'deadline_at']).where('id', 'in', ids).execute();
    } finally {
      await store.close();
    }
  }

  /** The commands the simulated automaker of `output` logged as accepted. */
  const acceptedIn = (output: string) => logLines(output).filter((l) => l.msg === ACCEPTED).map((l) => String(l.command));

  async function killWithPending(ids: readonly string[]) {
    // Its lines reach the pipe when the test reads it (a busy machine may keep some in the
    // logger's buffer a moment): wait for every accepted line, so none dies with the process.
    await until('the automaker to log every command accepted', async () => ids.every((id) => acceptedIn(served!.output()).includes(id)), 10_000, 20);
    // A kill before a status URL's commit leaves a command with no URL to poll, initiated again
    // 15 s after it began (initiation-window.test.ts covers that case): this test is about polls.
    await statusUrlsStored(database.url, ids, 10_000);
    await served!.stop('SIGKILL');
    // Everything it wrote before dying, read to the end of its pipe.
    const stdout = served!.child.stdout!;
    if (!stdout.readableEnded) await new Promise((r) => stdout.once('end', r));
    outputs.push(served!.output());
    // The kill came while the vehicles were still answering (1.5 s at least): all Pending.
    expect((await storedCommands(ids)).map((c) => c.status)).toEqual(ids.map(() => 'Pending'));
  }

  it('when SIGKILL lands while 10 commands are Pending, then after a restart each ends Success before its deadline, initiated once', async () => {
    const first = await serve();
    const cloudUrl = cloudUrlOf(first.output());
    const ids = await sendCommands(first.url, VINS);
    await killWithPending(ids);

    const second = await serve();
    expect(cloudUrlOf(second.output())).toBe(cloudUrl);
    await until('the commands to end', async () => (await storedCommands(ids)).every((c) => c.status !== 'Pending'), 30_000);
    const rows = await storedCommands(ids);
    for (const row of rows) {
      expect(row.status, `command ${row.id}: ${row.detail}\n${second.output()}`).toBe('Success');
      expect(Number(row.updated_at)).toBeLessThanOrEqual(Number(row.deadline_at));
      expect(JSON.parse(row.detail)).toHaveProperty('odometer');
    }
    // Accepted once, before the kill; the restarted service sent none of them again.
    await new Promise((r) => setTimeout(r, 500));
    expect(acceptedIn(outputs.join('')).sort()).toEqual([...ids].sort());
    expect(acceptedIn(second.output()).filter((id) => ids.includes(id))).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it('when its port is taken while commands are Pending, then it listens on another and each of them ends in error with one log line saying why', async () => {
    const ids = await sendCommands(served!.url, VINS.slice(0, 3));
    const port = Number(new URL(cloudUrlOf(served!.output())!).port);
    await killWithPending(ids);
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(port, '127.0.0.1', resolve));

    const third = await serve();
    expect(Number(new URL(cloudUrlOf(third.output())!).port)).not.toBe(port);
    expect(logLines(third.output()).some((l) => l.port === port && String(l.msg).includes('cannot listen on its kept port'))).toBe(true);
    await until('the commands to end', async () => (await storedCommands(ids)).every((c) => c.status !== 'Pending'), 30_000);
    expect((await storedCommands(ids)).map((c) => [c.status, JSON.parse(c.detail)])).toEqual(ids.map(() => ['Error', 'Internal system failures.']));
    // The poll that ended it is the last: one line per command, naming both origins.
    await new Promise((r) => setTimeout(r, 1500));
    const why = logLines(third.output()).filter((l) => String(l.msg).startsWith('command ended in error'));
    expect(why.map((l) => l.command).sort()).toEqual([...ids].sort());
    for (const line of why) expect(line.why).toBe(`its status URL (http://127.0.0.1:${port}) is not at the automaker's configured origin (${cloudUrlOf(third.output())})`);
  }, TEST_TIMEOUT_MS);
});
