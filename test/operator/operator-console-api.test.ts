/**
 * The operator console's API over real HTTP on both databases: an operator set up as `admin
 * operator add` does signs in at /operator/session, and registers a plan, an automaker (its
 * ingest key answered once and good for POST /ingest), a company, a vehicle with its tracker and
 * an application (its credentials answered once and good for POST /token); rotating and
 * disabling take effect at once; mistakes are 4xx naming the field; a company's session is no
 * operator's and an operator's no company's; a new password ends the operator's sessions; every
 * change is an audit entry naming the operator; no password or secret in any table or log line.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOperator, removeOperator, setOperatorPasswordOf } from '../../src/operators/manage-operators.js';
import { addPerson, consoleSignIn, CONSOLE_HEADER, TEST_CONSOLE_USERS, withSession } from '../support/console-people.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { startTestService, type TestService } from '../support/test-service.js';

const MIN = 60_000;
const EMAIL = 'ops@operator.example';
const PASSWORD = 'operator correct horse battery';
const VIN = '9BWZZZ377VT777001';
const IMEI = '356307042441099';

describe.each(DATABASE_KINDS)('operator console API on %s', (kind) => {
  let svc: TestService;
  let cookie: string;
  const secrets: string[] = [PASSWORD];
  const operators = () => ({ db: svc.store.db, passwordHashCost: TEST_CONSOLE_USERS.passwordHashCost, now: () => svc.clock.now() });
  const as = (id: string, extra: Record<string, string> = {}) => ({ cookie: `telematics_operator=${id}`, ...CONSOLE_HEADER, ...extra });
  const op = (method: string, path: string, json?: unknown, id = cookie) => svc.request(method, `/operator/api${path}`, { headers: as(id), ...(json === undefined ? {} : { json }) });

  async function signIn(email: string, password: string) {
    const res = await svc.request('POST', '/operator/session', { json: { email, password }, headers: CONSOLE_HEADER });
    return { res, id: /telematics_operator=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] };
  }

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, {
      http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 12 * 60 * MIN }, basemap: null, users: TEST_CONSOLE_USERS } },
    });
    expect(await addOperator(operators(), 'Ops@Operator.example', PASSWORD)).toEqual({ email: EMAIL });
    const signed = await signIn(EMAIL, PASSWORD);
    expect(signed.res.status).toBe(200);
    cookie = signed.id!;
  });
  afterAll(async () => { await svc?.close(); });

  it('when nobody is signed in, then the session is 204 and the API 401; a wrong password or an unknown e-mail is the same 401; a sign-in from another site is refused', async () => {
    expect((await svc.request('GET', '/operator/session')).status).toBe(204);
    const anonymous = await svc.request('GET', '/operator/api/plans', { headers: CONSOLE_HEADER });
    expect(anonymous.status).toBe(401);
    for (const [email, password] of [[EMAIL, 'a wrong password of length'], ['nobody@operator.example', PASSWORD]]) {
      const wrong = await signIn(email!, password!);
      expect(wrong.res.status).toBe(401);
      expect(wrong.res.body).toEqual({ detail: 'Invalid e-mail or password.' });
      expect(wrong.id).toBeUndefined();
    }
    expect((await svc.request('POST', '/operator/session', { json: { email: EMAIL }, headers: CONSOLE_HEADER })).status).toBe(400);
    expect((await svc.request('POST', '/operator/session', { json: { email: EMAIL, password: PASSWORD } })).body)
      .toEqual({ detail: 'Cross-site request refused: send it from the console.' });
    expect((await svc.request('POST', '/operator/api/plans', { json: { name: 'x' }, headers: { cookie: `telematics_operator=${cookie}` } })).status).toBe(403);
  });

  it('when the operator is signed in, then the session names them and offers the registry\'s choices', async () => {
    const me = await svc.request('GET', '/operator/session', { headers: as(cookie) });
    expect(me.status).toBe(200);
    expect(me.body.operator).toEqual({ email: EMAIL });
    expect(me.body.choices.connectors).toEqual(['sim', 'http', 'device']);
    expect(me.body.choices.device_protocols.map((p: { name: string }) => p.name)).toContain('teltonika');
    expect(me.body.choices.scopes).toContain('commands:write');
    expect(me.headers.get('cache-control')).toBe('no-store');
  });

  it('when a company person\'s session is sent to the operator API, or the operator\'s to the console\'s, then neither is signed in', async () => {
    const owner = await addPerson(svc, 'alpha', 'owner', `owner-${kind}@alpha.example`);
    const person = await consoleSignIn(svc, owner);
    expect((await svc.request('GET', '/operator/api/companies', { headers: as(person) })).status).toBe(401);
    expect((await svc.request('GET', '/operator/api/companies', { headers: { cookie: `telematics_console=${person}`, ...CONSOLE_HEADER } })).status).toBe(401);
    expect((await svc.request('GET', '/console/api/vehicle', { headers: withSession(cookie, CONSOLE_HEADER) })).status).toBe(401);
  });

  it('when a plan is added and changed, then it is listed as the fleet file spells it; a duplicate is 409, an unknown datapoint 400, an unknown plan 404', async () => {
    const added = await op('POST', '/plans', { name: 'tracking', datapoints: ['vin', 'latitude', 'longitude'], commands: [] });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ name: 'tracking', datapoints: ['latitude', 'longitude', 'vin'], commands: [] });
    expect((await op('POST', '/plans', { name: 'everything' })).body).toEqual({ name: 'everything', datapoints: '*', commands: '*' });
    expect((await op('POST', '/plans', { name: 'tracking' }))).toMatchObject({ status: 409, body: { detail: 'Already registered: plan "tracking" already exists.' } });
    // Two adds of one name at once: one is made, the other is told it is there.
    const racing = await Promise.all([op('POST', '/plans', { name: 'racing' }), op('POST', '/plans', { name: 'racing' })]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409]);
    const many = await op('POST', '/plans', { name: 'many', datapoints: Array.from({ length: 500 }, (_, i) => `nope_${i}`) });
    expect(many.status).toBe(400);
    expect(many.body.detail).toMatch(/; and 480 more\.$/);
    const bad = await op('POST', '/plans', { name: 'bad', datapoints: ['altitude_of_the_moon'] });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^Invalid entry: datapoints\[0\]: .*altitude_of_the_moon/);
    expect((await op('PATCH', '/plans/tracking', { commands: ['diagnostics'] })).body).toEqual({ name: 'tracking', datapoints: ['latitude', 'longitude', 'vin'], commands: ['diagnostics'] });
    expect((await op('PATCH', '/plans/nosuch', { commands: '*' }))).toMatchObject({ status: 404, body: { detail: 'Not found: unknown plan "nosuch".' } });
    expect((await op('PATCH', '/plans/tracking', { name: 'renamed' })).body).toEqual({ detail: 'Invalid entry: name: is not a field here (datapoints, commands).' });
    const list = await op('GET', '/plans');
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['basic', 'everything', 'full', 'tracking']));
  });

  it('when an automaker is added, then its ingest key is answered once, works for POST /ingest, and a replaced one stops working', async () => {
    const added = await op('POST', '/oems', { name: 'trackerco', connector: 'device' });
    expect(added.status).toBe(201);
    expect(added.headers.get('cache-control')).toBe('no-store');
    expect(added.body).toMatchObject({ name: 'trackerco', connector: 'device', base_url: null, datapoints: '*', commands: '*', ingest_key: expect.stringMatching(/^tik_/) });
    const key = added.body.ingest_key as string;
    secrets.push(key);
    expect(JSON.stringify((await op('GET', '/oems')).body)).not.toContain(key);
    expect((await svc.ingest([], { oem: 'trackerco', key })).status).not.toBe(401);
    const replaced = await op('POST', '/oems/trackerco/ingest-key', {});
    expect(replaced.body.ingest_key).toMatch(/^tik_/);
    secrets.push(replaced.body.ingest_key);
    expect((await svc.ingest([], { oem: 'trackerco', key })).status).toBe(401);
    expect((await svc.ingest([], { oem: 'trackerco', key: replaced.body.ingest_key })).status).not.toBe(401);
    expect((await op('POST', '/oems', { name: 'cloudco', connector: 'http' })).body.detail).toBe('Invalid entry: base_url: is required for the http connector.');
    expect((await op('POST', '/oems', { name: 'cloudco', connector: 'http', base_url: 'https://cloud.example/api' })).body).toMatchObject({ base_url: 'https://cloud.example/api' });
    // null clears what a change would otherwise keep.
    expect((await op('PATCH', '/oems/cloudco', { connector: 'sim', base_url: null })).body).toMatchObject({ connector: 'sim', base_url: null });
    expect((await op('PATCH', '/oems/trackerco', { ingest_key: 'tik_mine' })).body.detail).toMatch(/^Invalid entry: ingest_key: is not a field here/);
  });

  it('when a company, its vehicle with a tracker and its application are registered, then the credentials are answered once and get tokens', async () => {
    expect((await op('POST', '/companies', { id: 'gamma', name: 'Gamma Fretes', plan: 'tracking' }))).toMatchObject({ status: 201, body: { id: 'gamma', name: 'Gamma Fretes', plan: 'tracking' } });
    expect((await op('POST', '/companies', { id: 'delta', name: 'Delta', plan: 'nosuch' })).body.detail).toBe('Invalid entry: plan: unknown plan "nosuch".');
    expect((await op('PATCH', '/companies/gamma', { name: 'Gamma Fretes Ltda' })).body).toEqual({ id: 'gamma', name: 'Gamma Fretes Ltda', plan: 'tracking' });

    const vehicle = await op('POST', '/vehicles', {
      company: 'gamma', vin: VIN, plate: 'GAM-0001', oem: 'trackerco', model: 'Cargo', year: 2024, device: { protocol: 'teltonika', id: IMEI },
    });
    expect(vehicle.status).toBe(201);
    expect(vehicle.body).toMatchObject({ company: 'gamma', vin: VIN, status: 'active', device: { protocol: 'teltonika', id: IMEI }, sim: null });
    expect((await op('POST', '/vehicles', { company: 'alpha', vin: VIN, plate: 'X', oem: 'trackerco', model: 'M', year: 2020 })).body.detail)
      .toMatch(/is registered to company "gamma", not "alpha"/);
    expect((await op('POST', '/vehicles', { company: 'gamma', vin: '9BWZZZ377VT777002', plate: 'X', oem: 'trackerco', model: 'M', year: 2020, device: { protocol: 'teltonika', id: '12' } })).body.detail)
      .toMatch(/^Invalid entry: id: /);
    expect((await op('GET', '/vehicles?company=gamma')).body.data.map((v: { vin: string }) => v.vin)).toEqual([VIN]);
    expect((await op('GET', '/vehicles')).status).toBe(400);
    // A tracker OEM's vehicle is reached through its tracker: it may be replaced, not removed.
    expect((await op('PATCH', `/vehicles/${VIN}`, { device: null })).body.detail).toMatch(/^Invalid entry: device: is required/);
    expect((await op('PATCH', `/vehicles/${VIN}`, { device: { protocol: 'teltonika', id: '356307042441100' }, plate: 'GAM-0002' })).body)
      .toMatchObject({ plate: 'GAM-0002', device: { protocol: 'teltonika', id: '356307042441100' } });
    expect((await op('PATCH', '/vehicles/9BWZZZ377VT777999', { plate: 'X' })).status).toBe(404);

    const app = await op('POST', '/applications', { company: 'gamma', name: 'fleet-app', token_lifetime: 600, scopes: ['vehicles:read'] });
    expect(app.status).toBe(201);
    expect(app.headers.get('cache-control')).toBe('no-store');
    expect(app.body).toMatchObject({ company: 'gamma', name: 'fleet-app', enabled: true, token_lifetime: 600, scopes: 'vehicles:read', has_sign_secret: true });
    const { client_id: clientId, client_secret: clientSecret, sign_secret: signSecret } = app.body.credentials;
    secrets.push(clientSecret, signSecret);
    const token = await svc.token(clientId, clientSecret);
    expect((await svc.request('GET', '/vehicle', { headers: { authorization: `Bearer ${token}` } })).body).toMatchObject([{ vin: VIN }]);
    expect(JSON.stringify((await op('GET', '/applications?company=gamma')).body)).not.toContain(clientSecret);
    expect((await op('GET', '/applications')).body).toEqual({ detail: 'Invalid entry: company: is required (the list is one company\'s applications).' });

    const rotated = await op('POST', `/applications/${clientId}/secrets`, { only: 'client' });
    expect(rotated.body.credentials).toEqual({ company: 'gamma', application: 'fleet-app', client_id: clientId, client_secret: expect.stringMatching(/^tcs_/) });
    secrets.push(rotated.body.credentials.client_secret);
    expect((await svc.request('GET', '/vehicle', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    const fresh = await svc.token(clientId, rotated.body.credentials.client_secret);
    expect((await op('PATCH', `/applications/${clientId}`, { enabled: false, scopes: '*' })).body).toMatchObject({ enabled: false, scopes: '*' });
    expect((await svc.request('GET', '/vehicle', { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(401);
    expect((await op('PATCH', `/applications/${clientId}`, { enabled: 'no' })).body.detail).toBe('Invalid entry: enabled: must be true or false.');
    expect((await op('PATCH', `/applications/${clientId}`, { token_lifetime: 5 })).status).toBe(400);
    expect((await op('PATCH', `/applications/${clientId}`, { scopes: ['fly:away'] })).status).toBe(400);
    // Whole or not at all: a good lifetime beside a bad scope changes nothing.
    expect((await op('PATCH', `/applications/${clientId}`, { token_lifetime: 900, scopes: ['fly:away'] })).status).toBe(400);
    expect((await op('GET', '/applications?company=gamma')).body.data[0]).toMatchObject({ token_lifetime: 600 });
    // The edit form sends every field: what did not change is not an audit entry.
    expect((await op('PATCH', `/applications/${clientId}`, { enabled: false, scopes: '*', token_lifetime: 600 })).status).toBe(200);
    const updates = await svc.store.db.selectFrom('audit_entries').select('action').where('target', '=', clientId)
      .where('action', 'in', ['application.updated', 'application.disabled', 'application.scopes_changed']).execute();
    expect(updates.map((r) => r.action).sort()).toEqual(['application.disabled', 'application.scopes_changed']);
    expect((await op('PATCH', '/applications/app_nosuch', { enabled: true })).status).toBe(404);
    expect((await op('POST', '/applications', { company: 'gamma', name: 'fleet-app' })).status).toBe(409);
    expect((await op('POST', `/applications/${clientId}/secrets`, { only: 'all' })).status).toBe(400);
  });

  it('when a body is not an object, or JSON at all, or a path is unknown, then the answer is a 4xx with a detail', async () => {
    for (const body of [[], 'text', 42]) {
      const res = await op('POST', '/companies', body);
      expect(res.status).toBe(400);
      expect(typeof res.body.detail).toBe('string');
    }
    const broken = await svc.request('POST', '/operator/api/companies', { raw: '{"id":', headers: as(cookie, { 'content-type': 'application/json' }) });
    expect(broken.status).toBe(400);
    expect((await op('GET', '/nothing-here')).status).toBe(404);
    expect((await op('PATCH', `/vehicles/${'X'.repeat(300)}`, { plate: 'x' })).status).toBe(400);
  });

  it('when the operator changes the registry, then each change is an audit entry naming them', async () => {
    const rows = await svc.store.db.selectFrom('audit_entries').select(['chain', 'actor_kind', 'actor_id', 'action', 'target'])
      .where('actor_kind', '=', 'operator').where('actor_id', '=', EMAIL).execute();
    const actions = rows.map((r) => `${r.action} ${r.target}`);
    expect(actions).toEqual(expect.arrayContaining([
      'operator.signed_in ops@operator.example', 'plan.created tracking', 'oem.created trackerco', 'company.created gamma', 'company.updated gamma',
      `vehicle.created ${VIN}`, `vehicle.updated ${VIN}`, 'application.disabled ' + rows.find((r) => r.action === 'application.created')!.target,
    ]));
    expect(rows.filter((r) => r.action === 'operator.signed_in').length).toBeGreaterThan(0);
    const failures = await svc.store.db.selectFrom('audit_entries').select(['actor_id', 'target']).where('action', '=', 'operator.signed_in').where('outcome', '=', 'failure').execute();
    // A wrong password, and an unknown e-mail (its entry keeps no e-mail: the work is the same, the record says nothing of who typed what).
    expect(failures).toEqual(expect.arrayContaining([{ actor_id: EMAIL, target: EMAIL }, { actor_id: 'unknown', target: null }]));
    expect(JSON.stringify(failures)).not.toContain('nobody@operator.example');
  });

  it('when the operator\'s password is replaced from the command line, or they are removed, then their sessions end', async () => {
    const second = (await signIn(EMAIL, PASSWORD)).id!;
    expect((await op('GET', '/companies', undefined, second)).status).toBe(200);
    const generated = await setOperatorPasswordOf(operators(), EMAIL);
    expect(generated.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    secrets.push(generated.password!);
    expect((await op('GET', '/companies', undefined, second)).status).toBe(401);
    expect((await signIn(EMAIL, PASSWORD)).res.status).toBe(401);
    const third = (await signIn(EMAIL, generated.password!)).id!;
    await removeOperator(operators(), EMAIL);
    expect((await op('GET', '/companies', undefined, third)).status).toBe(401);
    expect((await signIn(EMAIL, generated.password!)).res.status).toBe(401);
    await addOperator(operators(), EMAIL, PASSWORD);
    cookie = (await signIn(EMAIL, PASSWORD)).id!;
    const out = await svc.request('DELETE', '/operator/session', { headers: as(cookie) });
    expect(out.status).toBe(204);
    expect((await op('GET', '/companies')).status).toBe(401);
  });

  it('when every table and log line is read, then no operator password, issued secret or session id is in them', async () => {
    const tables = kind === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(svc.store.db)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(svc.store.db)).rows.map((r) => r.name);
    expect(tables).toContain('operators');
    let dump = '';
    for (const table of tables) dump += JSON.stringify((await sql`select * from ${sql.table(table)}`.execute(svc.store.db)).rows);
    expect(dump).toContain(EMAIL);
    const logs = svc.logs.join('');
    for (const secret of [...secrets, cookie]) {
      expect(dump.includes(secret), 'a secret in the tables').toBe(false);
      expect(logs.includes(secret), 'a secret in the logs').toBe(false);
    }
  });
});
