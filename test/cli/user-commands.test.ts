/**
 * `telematics admin user …` on both databases: the operator invites a company's first owner and
 * gets a link that works once, lists, re-roles, resets and removes people; mistakes are one line
 * and exit 1; the audit trail names the operator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { cli } from '../support/in-process-cli.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe.each(DATABASE_KINDS)('admin user on %s', (kind) => {
  let svc: TestService;
  const admin = (...args: string[]) => cli(['admin', 'user', ...args, '--database', svc.databaseUrl]);
  const CONSOLE = { 'x-telematics-console': '1' };

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { console: { sessions: { idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 }, basemap: null, users: { passwordHashCost: 12, passwordLinkLifetimeMs: 3_600_000, totpIssuer: 'Telematics' } } } });
  });
  afterAll(async () => { await svc?.close(); });

  it('when the operator invites an owner, then the printed link sets the password once and the person signs in', async () => {
    const invited = await admin('invite', '--company', 'alpha', '--email', 'Boss@Alpha.example', '--as', 'owner', '--url', 'https://fleet.example/', '--json');
    expect(invited.code, invited.err).toBe(0);
    const value = JSON.parse(invited.out);
    expect(value).toEqual({ email: 'boss@alpha.example', role: 'owner', link: expect.stringMatching(/^https:\/\/fleet\.example\/console\/#password=[A-Za-z0-9_-]{43}$/), link_expires: expect.any(String) });
    const token = value.link.split('#password=')[1];
    expect((await svc.request('POST', '/console/password', { json: { token, password: 'the boss has a long password' }, headers: CONSOLE })).status).toBe(200);
    expect((await svc.request('POST', '/console/password', { json: { token, password: 'the boss has a long password' }, headers: CONSOLE })).status).toBe(410);
    const signIn = await svc.request('POST', '/console/session', { json: { email: 'boss@alpha.example', password: 'the boss has a long password' }, headers: CONSOLE });
    expect(signIn.body).toMatchObject({ user: { email: 'boss@alpha.example', role: 'owner' }, commands: true });
    const text = await admin('invite', '--company', 'alpha', '--email', 'clerk@alpha.example', '--as', 'viewer');
    expect(text.out).toMatch(/^clerk@alpha\.example \(viewer\): \/console\/#password=\S{43}\nthe link works once, until .+; it is shown only now \(prefix it with the console's address, or pass --url\)\n$/);
  });

  it('when the operator lists, re-roles, resets and removes, then each is done and is an entry of the operator in the company\'s trail', async () => {
    const listed = JSON.parse((await admin('list', '--company', 'alpha', '--json')).out);
    expect(listed.map((u: { email: string; status: string }) => `${u.email} ${u.status}`)).toEqual(['boss@alpha.example active', 'clerk@alpha.example invited']);
    expect((await admin('role', '--company', 'alpha', '--email', 'clerk@alpha.example', '--as', 'dispatcher')).out).toBe('clerk@alpha.example is now dispatcher\n');
    const reset = JSON.parse((await admin('reset', '--company', 'alpha', '--email', 'boss@alpha.example', '--json')).out);
    expect(reset).toMatchObject({ email: 'boss@alpha.example', role: 'owner', link: expect.stringMatching(/^\/console\/#password=/) });
    expect((await svc.request('POST', '/console/session', { json: { email: 'boss@alpha.example', password: 'the boss has a long password' }, headers: CONSOLE })).status).toBe(401);
    expect((await admin('remove', '--company', 'alpha', '--email', 'clerk@alpha.example')).out).toBe('removed clerk@alpha.example\n');
    const trail = JSON.parse((await cli(['admin', 'audit', 'list', '--company', 'alpha', '--action', 'user.', '--database', svc.databaseUrl, '--json'])).out);
    expect(trail.filter((e: { actor: string }) => e.actor === 'operator:cli').map((e: { action: string }) => e.action))
      .toEqual(['user.removed', 'user.password_reset', 'user.role_changed', 'user.invited', 'user.invited']);
  });

  it.each([
    ['an unknown role', ['invite', '--company', 'alpha', '--email', 'x@alpha.example', '--as', 'god'], 'Invalid user: role must be one of owner, admin, dispatcher, viewer.'],
    ['an unknown company', ['invite', '--company', 'nope', '--email', 'x@alpha.example', '--as', 'viewer'], 'Invalid user: unknown company "nope".'],
    ['someone of another company', ['remove', '--company', 'beta', '--email', 'boss@alpha.example'], 'User not found.'],
    ['the last owner', ['role', '--company', 'alpha', '--email', 'boss@alpha.example', '--as', 'viewer'], 'A company keeps at least one owner.'],
  ])('when the operator names %s, then one line and exit 1', async (_label, args, message) => {
    const res = await admin(...args);
    expect(res.code).toBe(1);
    expect(res.err).toContain(message);
  });
});
