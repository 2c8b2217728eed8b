/**
 * Tracker connections and the API share the process's file descriptors. The real `serve`, started
 * with a low open-file limit, takes more silent Teltonika connections than it has descriptors:
 * the ones over `--tracker-connections` (sized from the limit) are closed at once and counted,
 * and /healthz still answers. When the rest of the process holds more than it is left, the
 * trackers past the last descriptor are closed, counted and logged as such. Node raises the soft
 * limit to the hard one by itself; the cap is sized from what the process then has, and logged.
 */
import { get } from 'node:http';
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

  const serve = async (openFiles: { soft: number; hard: number }, args: string[] = [], heldDescriptors = 0) => {
    database = await createTestDatabase(kind);
    served = await startServiceProcess(['--database', database.url, '--no-sim', '--teltonika-port', '0', ...args], serveEnv(kind), LISTENING, { openFiles, heldDescriptors });
    return Number(new RegExp(`"port":(\\d+)[^\\n]*${LISTENING}`).exec(served.output())![1]);
  };

  /** A connection that sends nothing; `closed` turns true once the service closes it. */
  const silent = (port: number) => new Promise<{ socket: Socket; closed: () => boolean }>((resolve) => {
    let closed = false;
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, closed: () => closed }));
    socket.on('error', () => resolve({ socket, closed: () => closed }));
    socket.once('close', () => { closed = true; });
    sockets.push(socket);
  });

  /** GET on a connection of its own that the service closes after the answer, so it holds no descriptor past it. */
  const getOnce = (path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = get(`${served!.url}${path}`, { agent: false, timeout: scaled(5000) }, (response) => {
      let body = '';
      response.on('data', (chunk) => { body += String(chunk); });
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${path} timed out`)));
    request.on('error', reject);
  });

  it('when more silent Teltonika connections arrive than the process has descriptors, then /healthz answers 200 and the ones over the cap are closed and counted', async () => {
    // 512: under about 300 the service cannot even start (Node's module loader opens files in parallel).
    const port = await serve({ soft: 512, hard: 512 }, ['--tracker-connections-per-address', '0']);
    expect(served!.output()).toMatch(/"openFiles":\{"soft":512,"hard":512\},"trackerConnections":256,/);
    expect(served!.output()).not.toContain('no file descriptors left');
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
    // 2048 less the 64 the process keeps, the API's 256 from one address and SQLite's no pool or PostgreSQL's 10.
    expect(served!.output()).toMatch(new RegExp(`"openFiles":\\{"soft":2048,"hard":2048\\},"trackerConnections":${kind === 'sqlite' ? 1728 : 1718},"perAddress":1000\\b`));
    expect(served!.output()).not.toMatch(/"level":40[^\n]*open-file limit/);
  });

  it('when the rest of the process holds descriptors and more trackers come than are left, then those past the last one are closed, counted and logged once, the process lives, and /healthz answers once they leave', async () => {
    // 48 held, with the ~32 the process has of its own (more with PostgreSQL's pool), are more than
    // the 64 kept beside the most --tracker-connections allows: trackers reach the last descriptor first.
    const port = await serve({ soft: 512, hard: 512 }, ['--tracker-connections', '448', '--tracker-connections-per-address', '0', '--osmand-port', '0'], 48);
    const osmandListening = /"port":(\d+)[^\n]*OsmAnd trackers: HTTP listening/;
    await until('the OsmAnd listener listens', async () => osmandListening.test(served!.output()), 5000, 25);
    const osmand = Number(osmandListening.exec(served!.output())![1]);
    const trackers = await Promise.all(Array.from({ length: 600 }, () => silent(port)));
    // Refused ones are closed at once; those taken stay open for the 10 s a tracker has to log in.
    let closed = -1;
    await until('the trackers past the last descriptor are closed', async () => {
      const now = trackers.filter((t) => t.closed()).length;
      const steady = now === closed;
      closed = now;
      return steady && now > 0;
    }, 5000, 300);
    // An OsmAnd phone past the last descriptor is turned away the same way.
    for (let i = 0; i < 3; i += 1) {
      const phone = await silent(osmand);
      await until('the phone past the last descriptor is closed', async () => phone.closed(), 2000, 10);
    }
    expect(served!.child.exitCode).toBeNull();
    const metrics = (await getOnce('/metrics')).body;
    expect(metrics).toContain('tracker_connections_open{protocol="teltonika",transport="tcp"}');
    const refused = (protocol: string, transport: string, reason: string) =>
      Number(new RegExp(`^tracker_connections_refused_total\\{protocol="${protocol}",transport="${transport}",reason="${reason}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    const open = Number(/^tracker_connections_open\{protocol="teltonika",transport="tcp"\} (\d+)$/m.exec(metrics)![1]);
    expect(refused('teltonika', 'tcp', 'descriptors')).toBe(closed);
    expect(refused('teltonika', 'tcp', 'total')).toBe(0);
    expect(open).toBe(600 - closed);
    expect(open).toBeLessThan(448);
    expect(refused('osmand', 'http', 'descriptors')).toBe(3);
    // One line for the flood: at most one a minute.
    expect(served!.output().match(/"level":40[^\n]*tracker connection refused: the process has no file descriptors left/g)).toHaveLength(1);

    for (const tracker of trackers) tracker.socket.destroy();
    await until('/healthz answers with the trackers gone', async () => (await getOnce('/healthz')).status === 200, 5000, 100);
    const again = await silent(port);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(again.closed()).toBe(false);
    expect(served!.child.exitCode).toBeNull();
  });
});
