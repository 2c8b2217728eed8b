/**
 * `telematics admin operator …` on both databases: an operator added with a generated password
 * (printed once) or one read from standard input signs in at /operator/session; a new password
 * ends their sessions; removal too; mistakes are one line and exit 1; the service-wide audit
 * chain names each change.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { cli } from '../support/in-process-cli.js';
import { BIN } from '../support/service-process.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { scaled } from '../support/timeouts.js';

const CONSOLE = { 'x-telematics-console': '1' };

/** The built command with `input` on its standard input. */
function withStdin(args: string[], input: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err });
    });
    child.stdin!.end(input);
  });
}

describe.each(DATABASE_KINDS)('admin operator on %s', (kind) => {
  let svc: TestService;
  const admin = (...args: string[]) => cli(['admin', 'operator', ...args, '--database', svc.databaseUrl]);
  const signIn = (email: string, password: string) => svc.request('POST', '/operator/session', { json: { email, password }, headers: CONSOLE });
  const sessionOf = (res: { headers: Headers }) => /telematics_operator=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { console: { sessions: { idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 }, basemap: null } } });
  });
  afterAll(async () => { await svc?.close(); });

  it('when an operator is added, then the generated password is printed once and signs in; the list shows no password', async () => {
    const added = await admin('add', '--email', 'Root@Ops.example');
    expect(added.code, added.err).toBe(0);
    const match = /^operator root@ops\.example added\npassword=([A-Za-z0-9_-]{24})\n\(shown only now: sign in at \/operator\/ with it\)\n$/.exec(added.out);
    expect(match, added.out).not.toBeNull();
    const signed = await signIn('root@ops.example', match![1]!);
    expect(signed.status).toBe(200);
    const listed = JSON.parse((await admin('list', '--json')).out);
    expect(listed).toEqual([{ email: 'root@ops.example', created_at: expect.any(String), password_changed_at: expect.any(String) }]);
    expect(JSON.stringify(listed)).not.toContain(match![1]!);

    const again = await admin('add', '--email', 'root@ops.example');
    expect(again).toMatchObject({ code: 1, err: 'telematics: operator root@ops.example already exists\n' });
    expect((await admin('add', '--email', 'not-an-email')).err).toBe('telematics: Invalid user: email must be an e-mail address.\n');

    const replaced = JSON.parse((await admin('password', '--email', 'root@ops.example', '--json')).out);
    expect(replaced).toEqual({ email: 'root@ops.example', password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) });
    expect((await svc.request('GET', '/operator/session', { headers: { cookie: `telematics_operator=${sessionOf(signed)}` } })).status).toBe(204);
    expect((await signIn('root@ops.example', replaced.password)).status).toBe(200);
    expect((await admin('remove', '--email', 'root@ops.example')).out).toBe('operator root@ops.example removed\n');
    expect((await signIn('root@ops.example', replaced.password)).status).toBe(401);
    expect((await admin('remove', '--email', 'root@ops.example')).err).toBe('telematics: unknown operator root@ops.example\n');

    const trail = await svc.store.db.selectFrom('audit_entries').select(['chain', 'actor_id', 'action', 'target']).where('action', 'like', 'operator.%').orderBy('seq').execute();
    expect(trail.filter((e) => e.actor_id === 'cli').map((e) => `${e.chain} ${e.action} ${e.target}`)).toEqual([
      '- operator.added root@ops.example', '- operator.password_set root@ops.example', '- operator.removed root@ops.example',
    ]);
  });

  it('when the password comes on standard input, then it is the one set, never printed; a short one is refused', async () => {
    const given = await withStdin(['admin', 'operator', 'add', '--email', 'stdin@ops.example', '--password-stdin', '--database', svc.databaseUrl], 'a long operator password\n');
    expect(given.code, given.err).toBe(0);
    expect(given.out).toBe('operator stdin@ops.example added\n');
    expect((await signIn('stdin@ops.example', 'a long operator password')).status).toBe(200);
    const short = await withStdin(['admin', 'operator', 'password', '--email', 'stdin@ops.example', '--password-stdin', '--database', svc.databaseUrl], 'short\n');
    expect(short).toMatchObject({ code: 1, err: 'telematics: password must be 12 to 256 characters, and not the e-mail.\n' });
  }, scaled(30_000));
});
