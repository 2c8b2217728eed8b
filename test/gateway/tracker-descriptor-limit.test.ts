/**
 * Tracker connections and the API share the process's file descriptors. The real `serve`, started
 * with a low open-file limit, takes more silent Teltonika connections than it has descriptors:
 * the ones over `--tracker-connections` (half the limit by default) are closed at once and
 * counted, and /healthz still answers. Node raises the soft limit to the hard one by itself; the
 * cap is sized from what the process then has, and logged.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { serveEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { until } from '../support/until.js';
import { scaled } from '../support/timeouts.js';

const LISTENING = 'Teltonika trackers: TCP and UDP listening';

describe.each(DATABASE_KINDS)('tracker connections under a low open-file limit on %s', (kind) => {
  let database: TestDatabase | undefined;
  let served: ServiceProcess | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await served?.stop('SIGKILL');
    await database?.drop();
  });

  const serve = async (openFiles: { soft: number; hard: number }, args: string[] = []) => {
    database = await createTestDatabase(kind);
    served = await startServiceProcess(['--database', database.url, '--no-sim', '--teltonika-port', '0', ...args], serveEnv(kind), LISTENING, { openFiles });
    return Number(new RegExp(`"port":(\\d+)[^\\n]*${LISTENING}`).exec(served.output())![1]);
  };

  it('when more silent Teltonika connections arrive than the process has descriptors, then /healthz answers 200 and the ones over the cap are closed and counted', async () => {
    // 512: under about 300 the service cannot even start (Node's module loader opens files in parallel).
    const port = await serve({ soft: 512, hard: 512 }, ['--tracker-connections-per-address', '0']);
    expect(served!.output()).toMatch(/"openFiles":\{"soft":512,"hard":512\},"trackerConnections":256,/);
    let closed = 0;
    await Promise.all(Array.from({ length: 600 }, () => new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve());
      socket.on('error', () => resolve());
      socket.once('close', () => { closed += 1; });
      sockets.push(socket);
    })));
    // Those accepted stay open for the 10 s a tracker has to log in: well after this.
    await until('the connections over the cap are closed', async () => closed >= 600 - 256, 5000, 20);
    const health = await fetch(`${served!.url}/healthz`, { signal: AbortSignal.timeout(scaled(5000)) });
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${served!.url}/metrics`, { signal: AbortSignal.timeout(scaled(5000)) })).text();
    expect(metrics).toContain('tracker_connections_refused_total{protocol="teltonika",transport="tcp",reason="total"} 344');
    expect(metrics).toContain('tracker_connections_open{protocol="teltonika",transport="tcp"} 256');
    expect(closed).toBe(344);
  });

  it('when the soft limit is below the hard one, then the service runs with the hard one and sizes the cap from it', async () => {
    await serve({ soft: 512, hard: 2048 });
    expect(served!.output()).toMatch(/"openFiles":\{"soft":2048,"hard":2048\},"trackerConnections":1024,"perAddress":1000\b/);
  });
});
