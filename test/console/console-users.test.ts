/**
 * A company's people over real HTTP on both databases: an owner invited by the operator takes up
 * the link and signs in; the role × action matrix through the console's API (a viewer's command
 * refused by the server); who may manage whom; a role change ending sessions; TOTP enrolment,
 * sign-in, replay and recovery codes; invitation expiry and reuse; the audit trail naming the
 * person; and no password, TOTP secret or recovery code in any table or log line.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/security/one-time-codes.js';
import { inviteUser } from '../../src/users/manage-users.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const CONSOLE = { 'x-telematics-console': '1' };
const USERS = { passwordHashCost: 12, passwordLinkLifetimeMs: 72 * HOUR, totpIssuer: 'Telematics' };
const PASSWORD = {
  owner: 'owner correct horse battery', admin: 'admin correct horse battery', dispatcher: 'dispatcher correct horse', viewer: 'viewer correct horse battery',
} as const;
type Role = keyof typeof PASSWORD;
const EMAIL = (role: Role) => `${role}@alpha.example`;

describe.each(DATABASE_KINDS)('console users on %s', (kind) => {
  let svc: TestService;
  const cookies = {} as Record<Role, string>;
  const secrets: string[] = [];

  const as = (cookie: string, extra: Record<string, string> = {}) => ({ cookie: `telematics_console=${cookie}`, ...CONSOLE, ...extra });
  const tokenOf = (link: string) => /#password=([A-Za-z0-9_-]{43})$/.exec(link)![1]!;

  async function signIn(email: string, password: string, code?: string) {
    const res = await svc.request('POST', '/console/session', { json: { email, password, code }, headers: CONSOLE });
    const cookie = /telematics_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    return { res, cookie };
  }

  async function takeUp(link: string, password: string) {
    return svc.request('POST', '/console/password', { json: { token: tokenOf(link), password }, headers: CONSOLE });
  }

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 12 * HOUR }, basemap: null, users: USERS } } });
    await svc.useSimulatedCloud();
    const deps = { store: svc.store, keyring: svc.keyring, clock: svc.clock, users: USERS };
    // The operator invites the first owner (the CLI's `admin user invite` is this call).
    const owner = await inviteUser(deps, { kind: 'operator', id: 'cli' }, 'alpha', { email: 'Owner@Alpha.example', role: 'owner' });
    expect(owner.user).toMatchObject({ email: EMAIL('owner'), role: 'owner', status: 'invited', second_factor: false });
    const link = `/console/#password=${owner.link.token}`;
    expect((await svc.request('POST', '/console/password/check', { json: { token: owner.link.token }, headers: CONSOLE })).body).toEqual({ email: EMAIL('owner'), purpose: 'invitation' });
    expect((await takeUp(link, PASSWORD.owner)).body).toEqual({ email: EMAIL('owner') });
    secrets.push(owner.link.token, ...Object.values(PASSWORD));
    cookies.owner = (await signIn(EMAIL('owner'), PASSWORD.owner)).cookie!;
    // The owner invites the others through the console's API.
    for (const role of ['admin', 'dispatcher', 'viewer'] as const) {
      const invited = await svc.request('POST', '/console/api/users', { json: { email: EMAIL(role), role }, headers: as(cookies.owner) });
      expect(invited.status).toBe(201);
      expect(invited.body).toMatchObject({ user: { email: EMAIL(role), role, status: 'invited' }, link: expect.stringMatching(/^\/console\/#password=/), link_expires: expect.any(String) });
      secrets.push(tokenOf(invited.body.link));
      expect((await takeUp(invited.body.link, PASSWORD[role])).status).toBe(200);
      cookies[role] = (await signIn(EMAIL(role), PASSWORD[role])).cookie!;
    }
  });
  afterAll(async () => { await svc?.close(); });

  it('when a person signs in, then the session says who and with which role, never a client id; commands only for roles that may send them', async () => {
    for (const role of ['owner', 'admin', 'dispatcher', 'viewer'] as const) {
      const me = await svc.request('GET', '/console/session', { headers: as(cookies[role]) });
      expect(me.body).toMatchObject({ user: { email: EMAIL(role), role }, company: 'Alpha Logistics', commands: role !== 'viewer' });
      expect(me.body).not.toHaveProperty('client_id');
      expect(me.body.scopes.includes('commands:write')).toBe(role !== 'viewer');
      expect(me.body.scopes.includes('users:manage')).toBe(role === 'owner' || role === 'admin');
    }
    expect((await svc.request('GET', '/console/api/me', { headers: as(cookies.viewer) })).body).toMatchObject({ email: EMAIL('viewer'), role: 'viewer', status: 'active' });
  });

  it.each([
    ['read the fleet', 'GET', '/console/api/vehicle', undefined, { owner: 200, admin: 200, dispatcher: 200, viewer: 200 }],
    ['read the latest data', 'GET', '/console/api/vehicle-data/latest', undefined, { owner: 200, admin: 200, dispatcher: 200, viewer: 200 }],
    ['send a command', 'POST', '/console/api/vehicle-command', { vin: ALPHA_VINS[0], command: 'diagnostics' }, { owner: 200, admin: 200, dispatcher: 200, viewer: 403 }],
    ['create a geofence', 'POST', '/console/api/geofences', { name: 'Depot', geometry: { type: 'Point', coordinates: [-46.6, -23.5] }, radius_m: 100 }, { owner: 201, admin: 201, dispatcher: 403, viewer: 403 }],
    ['list geofences', 'GET', '/console/api/geofences', undefined, { owner: 200, admin: 200, dispatcher: 200, viewer: 200 }],
    ['list alert rules', 'GET', '/console/api/alert-rules', undefined, { owner: 200, admin: 200, dispatcher: 200, viewer: 200 }],
    ['read the audit trail', 'GET', '/console/api/audit', undefined, { owner: 200, admin: 200, dispatcher: 403, viewer: 403 }],
    ['list the people', 'GET', '/console/api/users', undefined, { owner: 200, admin: 200, dispatcher: 403, viewer: 403 }],
    ['share a vehicle', 'POST', '/console/api/share-links', { vin: ALPHA_VINS[0], expires_in: 3600 }, { owner: 201, admin: 201, dispatcher: 201, viewer: 403 }],
    ['list share links', 'GET', '/console/api/share-links', undefined, { owner: 200, admin: 200, dispatcher: 200, viewer: 403 }],
  ] as const)('when each role tries to %s, then the server answers by role', async (_label, method, path, json, expected) => {
    for (const role of ['owner', 'admin', 'dispatcher', 'viewer'] as const) {
      const res = await svc.request(method, path, { json, headers: as(cookies[role]) });
      expect([role, res.status]).toEqual([role, expected[role]]);
      if (res.status === 403) expect(res.body.detail).toMatch(/^Insufficient scope: [a-z]+:[a-z]+ is required\.$/);
    }
  });

  it('when a dispatcher sends a command, then the service signed it and the audit trail names the person, not an application', async () => {
    const sent = await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[1], command: 'diagnostics' }, headers: as(cookies.dispatcher) });
    expect(sent.status).toBe(200);
    const audit = await svc.request('GET', `/console/api/audit?action=command.created&target=${ALPHA_VINS[1]}`, { headers: as(cookies.admin) });
    expect(audit.body.data[0]).toMatchObject({ actor: { kind: 'user', id: EMAIL('dispatcher') }, details: { command_id: sent.body.id } });
    const signIns = await svc.request('GET', '/console/api/audit?action=user.', { headers: as(cookies.owner) });
    const actions = signIns.body.data.map((e: { action: string; target: string }) => `${e.action} ${e.target}`);
    expect(actions).toEqual(expect.arrayContaining([`user.invited ${EMAIL('owner')}`, `user.password_set ${EMAIL('viewer')}`, `user.signed_in ${EMAIL('dispatcher')}`, `user.invited ${EMAIL('viewer')}`]));
    expect(signIns.body.data.find((e: { action: string; target: string }) => e.action === 'user.invited' && e.target === EMAIL('owner')).actor).toEqual({ kind: 'operator', id: 'cli' });
  });

  it('when an admin manages people, then only below admin; nobody removes or demotes the last owner; a dispatcher manages nobody', async () => {
    const ownerByAdmin = await svc.request('POST', '/console/api/users', { json: { email: 'second-owner@alpha.example', role: 'owner' }, headers: as(cookies.admin) });
    expect(ownerByAdmin.status).toBe(403);
    expect(ownerByAdmin.body).toEqual({ detail: 'Your role may not manage a user of role owner.' });
    const people = (await svc.request('GET', '/console/api/users', { headers: as(cookies.admin) })).body.data as { id: string; email: string; role: string }[];
    expect(people.map((p) => p.email)).toEqual([EMAIL('admin'), EMAIL('dispatcher'), EMAIL('owner'), EMAIL('viewer')]);
    const owner = people.find((p) => p.role === 'owner')!;
    expect((await svc.request('DELETE', `/console/api/users/${owner.id}`, { headers: as(cookies.admin) })).status).toBe(403);
    expect((await svc.request('PATCH', `/console/api/users/${owner.id}`, { json: { role: 'admin' }, headers: as(cookies.owner) })).body).toEqual({ detail: 'A company keeps at least one owner.' });
    expect((await svc.request('DELETE', `/console/api/users/${owner.id}`, { headers: as(cookies.owner) })).body).toEqual({ detail: 'A company keeps at least one owner.' });
    expect((await svc.request('POST', '/console/api/users', { json: { email: 'x@alpha.example', role: 'viewer' }, headers: as(cookies.dispatcher) })).status).toBe(403);
    // Another company's person is not found, whoever asks.
    expect((await svc.request('PATCH', '/console/api/users/00000000-0000-0000-0000-000000000000', { json: { role: 'viewer' }, headers: as(cookies.owner) })).status).toBe(404);
  });

  it.each([
    ['an e-mail that is not one', { email: 'nobody', role: 'viewer' }, 400, 'Invalid user: email must be an e-mail address.'],
    ['an unknown role', { email: 'new@alpha.example', role: 'root' }, 400, 'Invalid user: role must be one of owner, admin, dispatcher, viewer.'],
    ['an e-mail already taken', { email: EMAIL('viewer'), role: 'viewer' }, 409, 'A user with this e-mail already exists.'],
    ['no body', undefined, 400, 'Invalid request: body must be object.'],
  ])('when inviting with %s, then a 4xx with the catalogue\'s text', async (_label, json, status, detail) => {
    const res = await svc.request('POST', '/console/api/users', { json, headers: as(cookies.owner) });
    expect([res.status, res.body]).toEqual([status, { detail }]);
  });

  it.each([
    ['a wrong password', { email: EMAIL('viewer'), password: 'not the password at all' }, 401, 'Invalid e-mail or password.'],
    ['an unknown e-mail', { email: 'nobody@alpha.example', password: 'not the password at all' }, 401, 'Invalid e-mail or password.'],
    ['no password', { email: EMAIL('viewer') }, 400, 'email and password are required; code, when given, must be a string.'],
    ['a number for a code', { email: EMAIL('viewer'), password: PASSWORD.viewer, code: 123456 }, 400, 'email and password are required; code, when given, must be a string.'],
  ])('when signing in with %s, then a 4xx and no cookie', async (_label, json, status, detail) => {
    const res = await svc.request('POST', '/console/session', { json, headers: CONSOLE });
    expect([res.status, res.body, res.headers.get('set-cookie')]).toEqual([status, { detail }, null]);
  });

  it('when a viewer enrols TOTP, then sign-in asks for a code, accepts one once, and each recovery code once', async () => {
    const begun = await svc.request('POST', '/console/api/me/totp', { headers: as(cookies.viewer) });
    expect(begun.body).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]{32}$/), otpauth_uri: expect.stringContaining('otpauth://totp/Telematics:viewer%40alpha.example?') });
    const secret = begun.body.secret as string;
    secrets.push(secret);
    // Until confirmed, sign-in needs no code.
    expect((await signIn(EMAIL('viewer'), PASSWORD.viewer)).res.status).toBe(200);
    expect((await svc.request('POST', '/console/api/me/totp/confirm', { json: { code: '000000' }, headers: as(cookies.viewer) })).body).toEqual({ detail: 'Invalid code.' });
    const confirmed = await svc.request('POST', '/console/api/me/totp/confirm', { json: { code: currentTotp(secret, svc.clock.now()) }, headers: as(cookies.viewer) });
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    const recovery = confirmed.body.recovery_codes as string[];
    secrets.push(...recovery);

    expect((await signIn(EMAIL('viewer'), PASSWORD.viewer)).res.body).toEqual({ detail: 'Enter the 6-digit code of your authenticator app, or a recovery code.' });
    // The confirming code's step is spent: the same code again is a replay.
    expect((await signIn(EMAIL('viewer'), PASSWORD.viewer, currentTotp(secret, svc.clock.now()))).res.body).toEqual({ detail: 'Invalid code.' });
    svc.clock.advance(30_000);
    const withCode = await signIn(EMAIL('viewer'), PASSWORD.viewer, currentTotp(secret, svc.clock.now()));
    expect(withCode.res.status).toBe(200);
    cookies.viewer = withCode.cookie!;
    expect((await signIn(EMAIL('viewer'), PASSWORD.viewer, currentTotp(secret, svc.clock.now()))).res.status).toBe(401);
    // A wrong password never reveals that a code would be asked for.
    expect((await signIn(EMAIL('viewer'), 'wrong password entirely')).res.body).toEqual({ detail: 'Invalid e-mail or password.' });
    expect((await signIn(EMAIL('viewer'), PASSWORD.viewer, recovery[0]!.toUpperCase())).res.status).toBe(200);
    expect((await signIn(EMAIL('viewer'), PASSWORD.viewer, recovery[0]!)).res.body).toEqual({ detail: 'Invalid code.' });
    expect((await svc.request('GET', '/console/api/me', { headers: as(cookies.viewer) })).body.second_factor).toBe(true);
    const failures = await svc.request('GET', '/console/api/audit?action=user.signed_in', { headers: as(cookies.owner) });
    expect(failures.body.data.filter((e: { outcome: string; target: string }) => e.outcome === 'failure' && e.target === EMAIL('viewer')).length).toBeGreaterThanOrEqual(3);
    // An e-mail nobody has costs an entry too (the same work as a wrong password), nobody's, in the service-wide chain, keeping no e-mail.
    expect((await signIn('nobody-at-all@alpha.example', 'some long password here')).res.status).toBe(401);
    const unknown = await svc.store.db.selectFrom('audit_entries').select(['chain', 'actor_id', 'target', 'details']).where('action', '=', 'user.signed_in').where('actor_id', '=', 'unknown').execute();
    expect(unknown).toContainEqual({ chain: '-', actor_id: 'unknown', target: null, details: '{"reason":"unknown e-mail"}' });
    expect(JSON.stringify(unknown)).not.toContain('nobody-at-all');
  });

  it('when a role changes, then that person\'s sessions end at once; a reset ends them too and its link works once', async () => {
    const dispatcher = (await svc.request('GET', '/console/api/users', { headers: as(cookies.owner) })).body.data.find((p: { role: string }) => p.role === 'dispatcher');
    const changed = await svc.request('PATCH', `/console/api/users/${dispatcher.id}`, { json: { role: 'viewer' }, headers: as(cookies.admin) });
    expect(changed.body).toMatchObject({ email: EMAIL('dispatcher'), role: 'viewer' });
    expect((await svc.request('GET', '/console/api/vehicle', { headers: as(cookies.dispatcher) })).status).toBe(401);
    const again = await signIn(EMAIL('dispatcher'), PASSWORD.dispatcher);
    expect(again.res.body.commands).toBe(false);
    expect((await svc.request('POST', '/console/api/vehicle-command', { json: { vin: ALPHA_VINS[0], command: 'diagnostics' }, headers: as(again.cookie!) })).status).toBe(403);

    const reset = await svc.request('POST', `/console/api/users/${dispatcher.id}/reset-password`, { headers: as(cookies.admin) });
    expect(reset.body.user.status).toBe('invited');
    expect((await svc.request('GET', '/console/api/vehicle', { headers: as(again.cookie!) })).status).toBe(401);
    expect((await signIn(EMAIL('dispatcher'), PASSWORD.dispatcher)).res.status).toBe(401);
    expect((await takeUp(reset.body.link, 'short')).body).toEqual({ detail: 'password must be 12 to 256 characters, and not the e-mail.' });
    expect((await takeUp(reset.body.link, EMAIL('dispatcher'))).status).toBe(400);
    expect((await takeUp(reset.body.link, 'a brand new dispatcher pass')).status).toBe(200);
    expect((await takeUp(reset.body.link, 'another one entirely here')).body).toEqual({ detail: 'This link has expired or was already used: ask for a new one.' });
    expect((await signIn(EMAIL('dispatcher'), 'a brand new dispatcher pass')).res.status).toBe(200);
  });

  it('when an invited person\'s role changes, then the link handed out before no longer works; an invited owner does not keep the company owned', async () => {
    const invited = await svc.request('POST', '/console/api/users', { json: { email: 'later-owner@alpha.example', role: 'viewer' }, headers: as(cookies.admin) });
    expect(invited.status).toBe(201);
    const promoted = await svc.request('PATCH', `/console/api/users/${invited.body.user.id}`, { json: { role: 'owner' }, headers: as(cookies.owner) });
    expect(promoted.body).toMatchObject({ role: 'owner', status: 'invited' });
    // The admin kept the viewer's link: it must not set up an owner's account.
    expect((await takeUp(invited.body.link, 'the admin wants an owner account')).status).toBe(410);
    // The only owner who can sign in is still the last one, whatever invited owners exist.
    const owner = (await svc.request('GET', '/console/api/users', { headers: as(cookies.owner) })).body.data.find((p: { email: string }) => p.email === EMAIL('owner'));
    expect((await svc.request('PATCH', `/console/api/users/${owner.id}`, { json: { role: 'admin' }, headers: as(cookies.owner) })).body).toEqual({ detail: 'A company keeps at least one owner.' });
    // The invited owner can be removed: another owner who can sign in remains.
    expect((await svc.request('DELETE', `/console/api/users/${invited.body.user.id}`, { headers: as(cookies.owner) })).status).toBe(204);
  });

  it('when an invitation is older than its lifetime, then it is gone (410), and an unknown or malformed token is too', async () => {
    const invited = await svc.request('POST', '/console/api/users', { json: { email: 'late@alpha.example', role: 'viewer' }, headers: as(cookies.owner) });
    svc.clock.advance(72 * HOUR + 1);
    expect((await takeUp(invited.body.link, 'in time, I had hoped')).status).toBe(410);
    expect((await svc.request('POST', '/console/password/check', { json: { token: tokenOf(invited.body.link) }, headers: CONSOLE })).status).toBe(410);
    expect((await svc.request('POST', '/console/password', { json: { token: 'x'.repeat(43), password: 'whatever it may be' }, headers: CONSOLE })).status).toBe(410);
    expect((await svc.request('POST', '/console/password', { json: { token: 42 }, headers: CONSOLE })).status).toBe(410);
    expect((await svc.request('POST', '/console/password', { raw: '{', headers: { ...CONSOLE, 'content-type': 'application/json' } })).status).toBe(400);
    // The sessions signed in before have idled out meanwhile; sign the owner in again for what follows.
    cookies.owner = (await signIn(EMAIL('owner'), PASSWORD.owner)).cookie!;
  });

  it('when every table and every log line is read, then no password, TOTP secret, recovery code or link token is in clear', async () => {
    const tables = kind === 'postgres'
      ? (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(svc.store.db)).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(svc.store.db)).rows;
    const dump: string[] = [];
    for (const { name } of tables) dump.push(JSON.stringify((await sql`select * from ${sql.table(name)}`.execute(svc.store.db)).rows));
    const text = dump.join('\n') + svc.logs.join('\n');
    expect(text).toContain('scrypt$12$8$1$');
    for (const secret of secrets) {
      expect(text.includes(secret), `found ${secret.slice(0, 4)}… in clear`).toBe(false);
      expect(text.includes(secret.replace('-', '')), `found ${secret.slice(0, 4)}… in clear`).toBe(false);
    }
    expect(secrets.length).toBeGreaterThan(15);
  });

  it('when two owners demote each other at the same moment, then exactly one change applies and the company keeps an owner', async () => {
    const deps = { store: svc.store, keyring: svc.keyring, clock: svc.clock, users: USERS };
    const second = await inviteUser(deps, { kind: 'operator', id: 'cli' }, 'alpha', { email: 'second-owner@alpha.example', role: 'owner' });
    expect((await svc.request('POST', '/console/password', { json: { token: second.link.token, password: 'second owner long password' }, headers: CONSOLE })).status).toBe(200);
    const secondCookie = (await signIn('second-owner@alpha.example', 'second owner long password')).cookie!;
    const people = (await svc.request('GET', '/console/api/users', { headers: as(cookies.owner) })).body.data as { id: string; email: string }[];
    const first = people.find((p) => p.email === EMAIL('owner'))!;
    const answers = await Promise.all([
      svc.request('PATCH', `/console/api/users/${second.user.id}`, { json: { role: 'admin' }, headers: as(cookies.owner) }),
      svc.request('PATCH', `/console/api/users/${first.id}`, { json: { role: 'admin' }, headers: as(secondCookie) }),
    ]);
    // The one demoted first has lost the session it acted from: its own change is refused (401) or,
    // had it run first, the other's meets the last owner (409). Never both applied.
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const owners = (await svc.store.db.selectFrom('users').select('email').where('company_id', '=', 'alpha').where('role', '=', 'owner').where('password_hash', 'is not', null).execute());
    expect(owners).toHaveLength(1);
  });
});
