/**
 * A service on the same machine as PostgreSQL can reach it over its Unix socket, as the README
 * advises (fewer costs per round trip than loopback TCP: RESULTS.md, issue 22, twenty-second step).
 * The URL names the socket's directory as its host, percent-encoded; every connection the service
 * opens (its pool, the registry listener) must take it.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { serveEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';

const adminUrl = process.env.TEST_DATABASE_URL;

/**
 * The server's first socket directory and its port, or undefined when it listens on none or its
 * socket is not on this machine (a server in a container, reached over TCP).
 */
async function socketOf(): Promise<{ directory: string; port: string } | undefined> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ directories: string; port: string }>(
      "select current_setting('unix_socket_directories') as directories, current_setting('port') as port");
    const first = rows[0]?.directories.split(',')[0]?.trim();
    const port = rows[0]!.port;
    return first !== undefined && first.startsWith('/') && existsSync(`${first}/.s.PGSQL.${port}`) ? { directory: first, port } : undefined;
  } finally {
    await admin.end();
  }
}

const socket = adminUrl === undefined ? undefined : await socketOf();

describe.skipIf(socket === undefined)('PostgreSQL over its Unix socket', () => {
  let database: TestDatabase;
  let socketUrl: string;
  let served: ServiceProcess;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const tcp = new URL(database.url);
    socketUrl = `postgres://${tcp.username}@${encodeURIComponent(socket!.directory)}:${socket!.port}${tcp.pathname}`;
    served = await startServiceProcess(['--demo', '--database', socketUrl], serveEnv('postgres', { TELEMATICS_TELTONIKA_PORT: '0', TELEMATICS_OSMAND_PORT: '0' }), 'API docs:');
  });
  afterAll(async () => {
    if (served?.child.exitCode === null) await served.stop();
    await database?.drop();
  });

  it('when DATABASE_URL names the socket directory, then the service serves and its every connection is on the socket', async () => {
    const out = served.output();
    const secret = /client_id=demo-acme-dispatch\n\s+client_secret=(\S+)/.exec(out)![1]!;
    const issued = await fetch(`${served.url}/token`, {
      method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'demo-acme-dispatch', client_secret: secret }),
    });
    expect(issued.status).toBe(200);
    const { token } = (await issued.json()) as { token: string };
    const vehicles = await fetch(`${served.url}/vehicle`, { headers: { authorization: `Bearer ${token}` } });
    expect(vehicles.status).toBe(200);
    expect(await vehicles.json()).toHaveLength(6);

    // A socket connection has no client address; a TCP one, even from 127.0.0.1, has one.
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const name = new URL(database.url).pathname.slice(1);
      const { rows } = await admin.query<{ on_socket: number; on_tcp: number }>(
        `select count(*) filter (where client_addr is null)::int as on_socket, count(*) filter (where client_addr is not null)::int as on_tcp
         from pg_stat_activity where datname = $1 and backend_type = 'client backend'`, [name]);
      expect(rows[0]!.on_tcp).toBe(0);
      expect(rows[0]!.on_socket).toBeGreaterThanOrEqual(2); // the pool's and the registry listener's, at least
    } finally {
      await admin.end();
    }
    expect(out).not.toMatch(/"level":50/);
  });
});
