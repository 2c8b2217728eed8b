/**
 * The `telematics` command as an operator runs it: child processes of bin/telematics.js (the built
 * dist/, as `npm ci` leaves it), talking HTTP to a served instance and sharing its database.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { printedDemoCredentials } from '../support/demo-process.js';
import { fixtureFleet } from '../support/fixture-fleet.js';
import { BIN, serveEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { scaled } from '../support/timeouts.js';

const run = promisify(execFile);

const serve = (args: string[], env: NodeJS.ProcessEnv): Promise<ServiceProcess> => startServiceProcess(args, env, 'API docs:');

async function token(url: string, clientId: string, clientSecret: string) {
  const res = await fetch(`${url}/token`, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret }) });
  return { status: res.status, body: (await res.json()) as { token: string } };
}

describe.each(DATABASE_KINDS)('telematics command on %s', (kind) => {
  let dir: string;
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let served: ServiceProcess;
  const cli = (...args: string[]) => run(process.execPath, [BIN, ...args, '--database', database.url], { env });
  const cliFails = (...args: string[]) => cli(...args).then(
    (r) => { throw new Error(`expected failure, got ${r.stdout}`); },
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

  beforeAll(async () => {
    if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url))) throw new Error('dist/ is missing: run `npm run build` (npm test does)');
    dir = mkdtempSync(join(tmpdir(), 'telematics-cli-'));
    database = await createTestDatabase(kind);
    env = serveEnv(kind, { TELEMATICS_TELTONIKA_PORT: '0', TELEMATICS_OSMAND_PORT: '0', TELEMATICS_GT06_PORT: '0' });
    served = await serve(['--demo', '--database', database.url, '--sim-backfill', '20m'], env);
  });
  afterAll(async () => {
    if (served?.child.exitCode === null) await served.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when served with --demo, then the printed credentials work over HTTP', async () => {
    const out = served.output();
    expect(out).toContain('Demo fleet seeded: 2 companies, 9 vehicles (3 with their own trackers).');
    const { clientId, clientSecret } = printedDemoCredentials(out);
    const issued = await token(served.url, clientId, clientSecret);
    expect(issued.status).toBe(200);
    const res = await fetch(`${served.url}/vehicle`, { headers: { authorization: `Bearer ${issued.body.token}` } });
    const vehicles = (await res.json()) as { company: string }[];
    expect(vehicles).toHaveLength(7);
    expect(new Set(vehicles.map((v) => v.company))).toEqual(new Set(['ACME Logistics']));
    // And what the demo company watches, made by the API's own use cases.
    expect(out).toContain('ACME Logistics watches 2 geofences and 4 alert rules');
    const watched = async (path: string) => (await fetch(`${served.url}${path}`, { headers: { authorization: `Bearer ${issued.body.token}` } })).json();
    const fences = await watched('/geofences') as { data: { name: string }[] };
    expect(fences.data.map((f) => f.name).sort()).toEqual(['Congonhas airport', 'São Paulo centre']);
    const rules = await watched('/alert-rules') as { kind: string }[];
    expect(rules.map((r) => r.kind).sort()).toEqual(['idling', 'low_fuel', 'no_data', 'overspeed']);
    expect(out).not.toMatch(/"level":50/);
    if (kind === 'sqlite') {
      expect(statSync(`${database.url}.keys.json`).mode & 0o777).toBe(0o600);
      // The embedded default runs the simulated fleet: its 20-minute backfill (121 records per
      // vehicle at 10 s) becomes queryable data. It is pushed in batches, so wait for all of it.
      let records: unknown[] = [];
      for (let i = 0; i < 100 && records.length < 120; i += 1) {
        if (i > 0) await new Promise((r) => setTimeout(r, 200));
        const data = await fetch(`${served.url}/vehicle-data`, {
          method: 'POST',
          headers: { authorization: `Bearer ${issued.body.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ vins: ['9BWZZZ377VT004251'], datapoints: ['date_time', 'odometer', 'latitude'] }),
        });
        if (data.status === 200) records = ((await data.json()) as Record<string, unknown[]>)['9BWZZZ377VT004251']!;
      }
      expect(records.length).toBeGreaterThanOrEqual(120);
    }
  });

  it('when a fleet file is applied twice, then the second run reports no change', async () => {
    const file = join(dir, 'fleet.json');
    const fleet = fixtureFleet();
    // The demo already registered simmotors with its own ingest key; a different key in the file
    // would be refused without --replace-secrets, so this file leaves it out.
    delete fleet.oems[0]!.ingest_key;
    writeFileSync(file, JSON.stringify(fleet));
    const first = JSON.parse((await cli('admin', 'apply', file)).stdout);
    expect(first.changed).toBe(true);
    expect(first.summary.vehicles.created).toBe(5);
    const second = JSON.parse((await cli('admin', 'apply', file)).stdout);
    expect(second.changed).toBe(false);
    expect(second.credentials).toEqual([]);
  });

  it('when a fleet file has a bad entry, then it exits non-zero with one line naming it and changes nothing', async () => {
    const before = (await cli('admin', 'vehicle', 'list', '--json')).stdout;
    const file = join(dir, 'bad.json');
    const fleet = fixtureFleet();
    delete fleet.oems[0]!.ingest_key;
    fleet.companies[0]!.name = 'Should Not Apply';
    fleet.companies[1]!.vehicles[1]!.vin = '9BWCA05W7RP10000Q';
    writeFileSync(file, JSON.stringify(fleet));
    const failure = await cliFails('admin', 'apply', file);
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim().split('\n')).toHaveLength(1);
    expect(failure.stderr).toContain('companies[1].vehicles[1].vin');
    expect(failure.stderr).toContain('nothing applied');
    expect((await cli('admin', 'vehicle', 'list', '--json')).stdout).toBe(before);
    expect((await cli('admin', 'company', 'list', '--json')).stdout).not.toContain('Should Not Apply');
  });

  it('when an application is created, then its printed credentials work; when disabled, then its token fails at once', async () => {
    const created = JSON.parse((await cli('admin', 'app', 'create', '--company', 'acme', '--name', 'cli-app', '--json')).stdout);
    expect(created).toEqual({ company: 'acme', application: 'cli-app', client_id: expect.any(String), client_secret: expect.any(String), sign_secret: expect.any(String) });
    const issued = await token(served.url, created.client_id, created.client_secret);
    expect(issued.status).toBe(200);
    const auth = { authorization: `Bearer ${issued.body.token}` };
    expect((await fetch(`${served.url}/vehicle`, { headers: auth })).status).toBe(200);

    const listed = (await cli('admin', 'app', 'list', '--json')).stdout;
    expect(listed).toContain(created.client_id);
    expect(listed).not.toContain(created.client_secret);

    await cli('admin', 'app', 'disable', '--client-id', created.client_id);
    expect((await fetch(`${served.url}/vehicle`, { headers: auth })).status).toBe(401);
    expect((await token(served.url, created.client_id, created.client_secret)).status).toBe(401);
  });

  it('when an application is created with --scopes and they are changed with app set --scopes, then its token is judged by them on the next request', async () => {
    const created = JSON.parse((await cli('admin', 'app', 'create', '--company', 'acme', '--name', 'scoped-app', '--scopes', 'trips:read,events:read', '--json')).stdout);
    const issued = await token(served.url, created.client_id, created.client_secret);
    const auth = { authorization: `Bearer ${issued.body.token}` };
    const refused = await fetch(`${served.url}/vehicle`, { headers: auth });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ detail: 'Insufficient scope: vehicles:read is required.' });
    const listed = JSON.parse((await cli('admin', 'app', 'list', '--company', 'acme', '--json')).stdout);
    expect(listed.find((a: { client_id: string }) => a.client_id === created.client_id).scopes).toBe('trips:read events:read');

    expect(JSON.parse((await cli('admin', 'app', 'set', '--client-id', created.client_id, '--scopes', 'vehicles:read', '--json')).stdout))
      .toEqual({ client_id: created.client_id, scopes: 'vehicles:read' });
    expect((await fetch(`${served.url}/vehicle`, { headers: auth })).status).toBe(200);

    const unknown = await cliFails('admin', 'app', 'set', '--client-id', created.client_id, '--scopes', 'vehicles:read,vehicles:write');
    expect(unknown.stderr).toMatch(/^telematics: --scopes unknown scope "vehicles:write"/);
  }, scaled(60_000));

  it('when a secret is rotated, then the new one works and the old one does not', async () => {
    const rotated = JSON.parse((await cli('admin', 'app', 'rotate-secret', '--client-id', 'beta-ops', '--only', 'client', '--json')).stdout);
    expect(Object.keys(rotated).sort()).toEqual(['application', 'client_id', 'client_secret', 'company']);
    expect((await token(served.url, 'beta-ops', rotated.client_secret)).status).toBe(200);
  });

  it('when registry commands are used, then they validate like the fleet file and report one-line errors', async () => {
    await cli('admin', 'plan', 'add', '--name', 'mini', '--datapoints', 'vin,speed', '--commands', 'diagnostics');
    await cli('admin', 'company', 'add', '--id', 'gamma', '--name', 'Gamma', '--plan', 'mini');
    await cli('admin', 'vehicle', 'add', '--company', 'gamma', '--vin', '1HGCM82633A004352', '--plate', 'GAM1A11', '--oem', 'simmotors', '--model', 'Civic', '--year', '2020');
    await cli('admin', 'vehicle', 'set', '--vin', '1HGCM82633A004352', '--status', 'inactive');
    const vehicles = JSON.parse((await cli('admin', 'vehicle', 'list', '--company', 'gamma', '--json')).stdout);
    expect(vehicles).toMatchObject([{ vin: '1HGCM82633A004352', status: 'inactive', plate: 'GAM1A11', year: 2020 }]);

    const badYear = await cliFails('admin', 'vehicle', 'add', '--company', 'gamma', '--vin', '2HGCM82633A004352', '--plate', 'X', '--oem', 'simmotors', '--model', 'M', '--year', 'old');
    expect(badYear.stderr).toBe('telematics: year: must be an integer from 1950 to 2100\n');
    const badVin = await cliFails('admin', 'vehicle', 'add', '--company', 'gamma', '--vin', 'IOQ', '--plate', 'X', '--oem', 'simmotors', '--model', 'M', '--year', '2020');
    expect(badVin.stderr).toMatch(/^telematics: vin: "IOQ" is not a valid VIN/);
    const badOem = await cliFails('admin', 'vehicle', 'set', '--vin', '1HGCM82633A004352', '--oem', 'nosuch');
    expect(badOem.stderr).toBe('telematics: oem: unknown OEM "nosuch"\n');
    const unknownPlan = await cliFails('admin', 'company', 'set', '--id', 'gamma', '--plan', 'nosuch');
    expect(unknownPlan.code).toBe(1);
    expect(JSON.parse((await cli('admin', 'company', 'list', '--json')).stdout).find((c: { id: string }) => c.id === 'gamma').plan).toBe('mini');

    const badName = await cliFails('admin', 'app', 'create', '--company', 'gamma', '--name', 'has spaces in it');
    expect(badName.stderr).toMatch(/^telematics: name "has spaces in it" is invalid/);

    const oem = JSON.parse((await cli('admin', 'oem', 'add', '--name', 'realmotors', '--connector', 'http', '--base-url', 'https://api.realmotors.example', '--json')).stdout);
    expect(oem.ingest_key).toMatch(/^tik_/);
    expect((await cli('admin', 'oem', 'list', '--json')).stdout).not.toContain(oem.ingest_key);
  }, scaled(90_000)); // some twenty CLI processes, each a Node start: slow on a loaded 2-core machine

  it('when operator text holds terminal escapes, bidi overrides or C1 controls, then it is refused, and whatever is echoed or listed reaches the terminal escaped', async () => {
    // Nothing the CLI prints may carry a raw C0 (but the newline), DEL, C1 or bidi control.
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    const file = join(dir, 'evil.json');
    const fleet = fixtureFleet();
    delete fleet.oems[0]!.ingest_key;
    fleet.companies[0]!.applications[0]!.name = 'evil\u001b]0;pwned\u0007';
    fleet.companies[1]!.name = 'Beta\u009b2J\u202egnp.exe';
    writeFileSync(file, JSON.stringify(fleet));
    const refused = await cliFails('admin', 'apply', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toMatch(raw);
    expect(refused.stderr).toContain('companies[0].applications[0].name: "evil\\u001b]0;pwned\\u0007" is invalid');
    expect(refused.stderr).toContain('companies[1].name: must not contain control or invisible formatting characters (U+009B)');

    const added = await cliFails('admin', 'company', 'add', '--id', 'delta', '--name', 'Delta\u202eCo', '--plan', 'mini');
    expect(added.stderr).toBe('telematics: name: must not contain control or invisible formatting characters (U+202E)\n');
    const renamed = await cliFails('admin', 'company', 'set', '--id', 'beta', '--name', 'Beta\u009b2J');
    expect(renamed.stderr).toBe('telematics: name: must not contain control or invisible formatting characters (U+009B)\n');
    const plate = await cliFails('admin', 'vehicle', 'set', '--vin', '1HGCM82633A004352', '--plate', 'GAM\u200f1');
    expect(plate.stderr).toBe('telematics: plate: must not contain control or invisible formatting characters (U+200F)\n');
    const unknown = await cliFails('admin', 'company', 'set', '--id', 'x\u001b[2J\u001b]0;pwned\u0007', '--name', 'X');
    expect(unknown.stderr).toBe('telematics: unknown company "x\\u001b[2J\\u001b]0;pwned\\u0007"\n');
    const option = await cliFails('admin', 'company', 'list', '--x\u001b]0;pwned\u0007');
    expect(option.stderr).toBe("error: unknown option '--x\\u001b]0;pwned\\u0007'\n");
    expect((await cli('admin', 'company', 'list', '--json')).stdout).not.toContain('Beta\u009b');

    // A name stored before names were checked is still printed harmlessly, in text and in JSON.
    const old = 'Old\u009b2J\u001b]0;pwned\u0007\u202eCo';
    const store = openStore(database.url, { poolSize: 1 });
    try {
      await store.db.insertInto('companies').values({ id: 'legacy', name: old, plan: 'mini', created_at: Date.now(), updated_at: Date.now() }).execute();
    } finally {
      await store.close();
    }
    const text = (await cli('admin', 'company', 'list')).stdout;
    expect(text).not.toMatch(raw);
    expect(text).toMatch(/^legacy +Old\\u009b2J\\u001b\]0;pwned\\u0007\\u202eCo +mini$/m);
    const json = (await cli('admin', 'company', 'list', '--json')).stdout;
    expect(json).not.toMatch(raw);
    expect(JSON.parse(json).find((c: { id: string }) => c.id === 'legacy').name).toBe(old);
  }, scaled(90_000));

  it('when an admin command names a database that does not exist, then it refuses without creating it', async () => {
    if (kind !== 'sqlite') return;
    const missing = join(dir, 'typo', 'nope.db');
    const failure = await run(process.execPath, [BIN, 'admin', 'company', 'list', '--database', missing], { env }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(`database ${missing} does not exist`);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
    const wrongScheme = await run(process.execPath, [BIN, 'admin', 'company', 'list', '--database', 'mysql://x/y'], { env }).catch((e) => e);
    expect(wrongScheme.stderr).toBe('telematics: database "mysql://x/y" must be a postgres:// URL or a SQLite file path\n');
  });

  it('when trips are rebuilt, then it reports what it recomputed, with progress on stderr', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + 'Z';
    const { stdout, stderr } = await cli('trips', 'rebuild', '--since', since, '--trip-min-distance', '0.1', '--json');
    const report = JSON.parse(stdout);
    expect(report).toEqual({ vehicles: expect.any(Number), records: expect.any(Number), trips: expect.any(Number) });
    expect(report.vehicles).toBeGreaterThanOrEqual(6);
    if (kind === 'sqlite') expect(report.records).toBeGreaterThan(0);
    expect(stderr).toMatch(/trips rebuild: \d+ trips from [\d,]+ records/);
    const bad = await cliFails('trips', 'rebuild', '--since', 'yesterday');
    expect(bad.stderr).toBe('telematics: --since must be YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or YYYY-MM-DDTHH:MM:SS±HH:MM\n');
  });

  it('when another serve is started on a port already in use, then it exits at once with a one-line error', async () => {
    const port = new URL(served.url).port;
    const started = Date.now();
    const failure = await run(process.execPath, [BIN, 'serve', '--port', port, '--database', database.url, '--no-sim'], { env, timeout: 15_000 }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('EADDRINUSE');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('when stopped with SIGTERM, then it exits cleanly within 10 s; restarted, it finds the demo again', async () => {
    const stopped = await served.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
    served = await serve(['--demo', '--database', database.url, '--sim-backfill', '20m'], env);
    expect(served.output()).toContain('Demo fleet present.');
  });
});
