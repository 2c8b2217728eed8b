/**
 * A service on the same machine as PostgreSQL can reach it over its Unix socket, as
 * docs/deployment.md describes (bench/history/2026-11-30-writev-and-unix-socket.md). The URL names the socket's directory as its
 * host, percent-encoded; every connection the service opens (its pool, the registry listener)
 * must take it.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { printedDemoCredentials } from '../support/demo-process.js';
import { serveEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';

const adminUrl = process.env.TEST_DATABASE_URL;

/** `url` (a TCP URL) with its host replaced by the socket in `directory` at `port`; the rest kept. */
function overSocket(url: string, directory: string, port: string): string {
  const tcp = new URL(url);
  const credentials = tcp.password === '' ? tcp.username : `${tcp.username}:${tcp.password}`;
  return `postgres://${credentials}@${encodeURIComponent(directory)}:${port}${tcp.pathname}${tcp.search}`;
}

/**
 * TEST_DATABASE_URL's server over its first socket, or undefined when it listens on none, its
 * socket is not on this machine (a server in a container, reached over TCP), or the socket's
 * `pg_hba.conf` lines do not let the URL's role in (`peer` for another operating-system user).
 */
async function socketOf(): Promise<{ directory: string; port: string } | undefined> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  let found: { directory: string; port: string } | undefined;
  try {
    const { rows } = await admin.query<{ directories: string; port: string }>(
      "select current_setting('unix_socket_directories') as directories, current_setting('port') as port");
    const directory = rows[0]!.directories.split(',')[0]!.trim();
    const port = rows[0]!.port;
    if (directory.startsWith('/') && existsSync(`${directory}/.s.PGSQL.${port}`)) found = { directory, port };
  } finally {
    await admin.end();
  }
  if (found === undefined) return undefined;
  const probe = new pg.Client({ connectionString: overSocket(adminUrl!, found.directory, found.port) });
  try {
    await probe.connect();
    return found;
  } catch {
    return undefined;
  } finally {
    await probe.end().catch(() => undefined);
  }
}

const socket = adminUrl === undefined ? undefined : await socketOf();

describe.skipIf(socket === undefined)('PostgreSQL over its Unix socket', () => {
  let database: TestDatabase;
  let served: ServiceProcess;

  beforeAll(async () => {
    if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` (npm test does)');
    database = await createTestDatabase('postgres');
    const env = serveEnv('postgres', { TELEMATICS_TELTONIKA_PORT: '0', TELEMATICS_OSMAND_PORT: '0', TELEMATICS_GT06_PORT: '0' });
    served = await startServiceProcess(['--demo', '--database', overSocket(database.url, socket!.directory, socket!.port)], env, 'API docs:');
  });
  afterAll(async () => {
    if (served?.child.exitCode === null) await served.stop();
    await database?.drop();
  });

  it('when DATABASE_URL names the socket directory, then the service serves and its every connection is on the socket', async () => {
    const { clientId, clientSecret } = printedDemoCredentials(served.output());
    const issued = await fetch(`${served.url}/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret }),
    });
    expect(issued.status).toBe(200);
    const { token } = (await issued.json()) as { token: string };
    const vehicles = await fetch(`${served.url}/vehicle`, { headers: { authorization: `Bearer ${token}` } });
    expect(vehicles.status).toBe(200);
    expect(await vehicles.json()).toHaveLength(7);

    // A socket connection has no client address; a TCP one, even from 127.0.0.1, has one.
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ on_socket: number; on_tcp: number }>(
        `select count(*) filter (where client_addr is null)::int as on_socket,
                count(*) filter (where client_addr is not null)::int as on_tcp
         from pg_stat_activity where datname = $1 and backend_type = 'client backend'`,
        [new URL(database.url).pathname.slice(1)]);
      expect(rows[0]!.on_tcp).toBe(0);
      expect(rows[0]!.on_socket).toBeGreaterThanOrEqual(2); // the pool's and the registry listener's, at least
    } finally {
      await admin.end();
    }
    expect(served.output()).not.toMatch(/"level":50/);
  });
});
