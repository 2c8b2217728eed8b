/**
 * Single sign-on against a real OpenID provider (oidc-provider, started here on loopback), on
 * both databases: the whole browser round trip (the service's start, the provider's
 * authorization and interaction, the callback) followed by hand with a cookie jar per site.
 * An invited person signs in; an e-mail nobody invited, an unverified one, a callback in another
 * browser, a replayed code, a forged state and a refusal at the provider sign nobody in. The
 * provider requires PKCE, so a sign-in without it could not pass.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser, resetUserPassword } from '../../src/users/manage-users.js';
import { takeUpPasswordLink } from '../../src/users/password-links.js';
import { addPerson, TEST_CONSOLE_USERS } from '../support/console-people.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { freePort } from '../support/free-port.js';
import { startTestService, type TestService } from '../support/test-service.js';

const MIN = 60_000;
const CLIENT = { id: 'telematics-console', secret: 'a client secret of the test provider, long enough' };

/** The provider's accounts: the e-mail each one's ID token claims. */
const ACCOUNTS: Record<string, { email: string; email_verified: boolean }> = {
  dispatcher: { email: 'Dispatcher@Alpha.example', email_verified: true },
  stranger: { email: 'stranger@elsewhere.example', email_verified: true },
  unverified: { email: 'admin@alpha.example', email_verified: false },
  // Another company's person: the provider is Alpha's, and vouches for Alpha's people only.
  beta: { email: 'viewer@beta.example', email_verified: true },
  invited: { email: 'invited@alpha.example', email_verified: true },
  // Another account of the provider claiming the dispatcher's e-mail, after the dispatcher's own first signed them in.
  'dispatcher-again': { email: 'dispatcher@alpha.example', email_verified: true },
  // A person with a second factor here, signed in at the provider with a password only, or with a code too.
  'admin-password': { email: 'admin@alpha.example', email_verified: true },
  'admin-otp': { email: 'admin@alpha.example', email_verified: true },
};
/** What the provider says it asked for (RFC 8176 `amr`). */
const AMR: Record<string, string[]> = { 'admin-otp': ['pwd', 'otp'] };

/** A browser's cookies, per host, followed through redirects by hand. */
class Browser {
  readonly #jar = new Map<string, Map<string, string>>();
  cookie(host: string, name: string): string | undefined { return this.#jar.get(host)?.get(name); }
  setCookie(host: string, name: string, value: string): void {
    if (!this.#jar.has(host)) this.#jar.set(host, new Map());
    this.#jar.get(host)!.set(name, value);
  }
  async get(url: string): Promise<Response> {
    const { host } = new URL(url);
    const cookies = [...(this.#jar.get(host) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookies ? { cookie: cookies } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.#jar.get(host)?.delete(name);
      else this.setCookie(host, name, value);
    }
    return res;
  }
  /** Follows redirects until `stop` says a URL is the one to stop before (answered, not followed). */
  async follow(url: string, stop: (url: string) => boolean = () => false): Promise<{ url: string; res: Response }> {
    let current = url;
    for (let hops = 0; hops < 12; hops += 1) {
      if (stop(current)) return { url: current, res: new Response(null) };
      const res = await this.get(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || location === null) return { url: current, res };
      current = new URL(location, current).href;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

describe.each(DATABASE_KINDS)('single sign-on on %s', (kind) => {
  let svc: TestService;
  let provider: Provider;
  let server: Server;
  let issuer: string;
  /** The account the provider's login signs in as, next. */
  let account = 'dispatcher';

  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    svc = await startTestService(kind, undefined, {
      http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 60 * MIN }, basemap: null, users: TEST_CONSOLE_USERS, oidc: { issuer, companyId: 'alpha', clientId: CLIENT.id, clientSecret: CLIENT.secret, name: 'Alpha SSO' } } },
    });
    await addPerson(svc, 'alpha', 'dispatcher');
    await addPerson(svc, 'alpha', 'admin');
    await addPerson(svc, 'beta', 'viewer');
    await inviteUser({ store: svc.store, keyring: svc.keyring, clock: svc.clock, users: TEST_CONSOLE_USERS }, { kind: 'operator', id: 'test' }, 'alpha', { email: 'invited@alpha.example', role: 'viewer' });
    // The admin has enrolled a second factor (what is sealed does not matter here: SSO reads no code).
    await svc.store.db.updateTable('users').set({ totp_sealed: 'enrolled' }).where('email', '=', 'admin@alpha.example').execute();
    provider = new Provider(issuer, {
      clients: [{ client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uris: [`${svc.url}/console/oidc/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
      pkce: { required: () => true },
      claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'] },
      findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, ...ACCOUNTS[id] }) }),
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      cookies: { keys: ['cookie key of the test provider'] },
    });
    // The provider's own login page, answered at once as `account`, consenting to what is asked.
    const interaction = async (req: IncomingMessage, res: ServerResponse) => {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: account, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: account, ...(AMR[account] ? { amr: AMR[account] } : {}) }, consent: { grantId } }, { mergeWithLastSubmission: false });
    };
    const callback = provider.callback();
    server = createServer((req, res) => {
      if (req.url?.startsWith('/interaction/')) interaction(req, res).catch((error) => { res.statusCode = 500; res.end(String(error)); });
      else callback(req, res);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await svc?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const atCallback = (url: string) => url.startsWith(`${svc.url}/console/oidc/callback`);
  /** The start, the provider, and back: the callback URL the provider sends the browser to. */
  async function throughProvider(browser: Browser, as: string): Promise<string> {
    account = as;
    const { url } = await browser.follow(`${svc.url}/console/oidc/start`, atCallback);
    expect(url.startsWith(`${svc.url}/console/oidc/callback?`), url).toBe(true);
    return url;
  }
  const sessionOf = (browser: Browser) => svc.request('GET', '/console/session', { headers: { cookie: `telematics_console=${browser.cookie(new URL(svc.url).host, 'telematics_console') ?? 'none'}` } });

  it('when SSO is set up, then the sign-in page offers it by name', async () => {
    expect((await svc.request('GET', '/console/sign-in-options')).body).toEqual({ sso: { name: 'Alpha SSO', start: '/console/oidc/start' } });
  });

  it('when an invited person signs in at the provider, then the callback signs them in with their role, PKCE and nonce checked, and the audit trail says so', async () => {
    const browser = new Browser();
    const started = await browser.get(`${svc.url}/console/oidc/start`);
    expect(started.status).toBe(302);
    const authorize = new URL(started.headers.get('location')!);
    expect(authorize.origin).toBe(issuer);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: CLIENT.id, response_type: 'code', scope: 'openid email', code_challenge_method: 'S256', redirect_uri: `${svc.url}/console/oidc/callback`,
      state: expect.any(String), nonce: expect.any(String), code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(started.headers.get('set-cookie')).toMatch(/^telematics_oidc=[^;]+; Max-Age=600; Path=\/console\/oidc\/; HttpOnly; SameSite=Lax$/);
    account = 'dispatcher';
    const { url } = await browser.follow(authorize.href, atCallback);
    const back = await browser.get(url);
    expect(back.status, svc.logs.filter((l) => l.includes('single sign-on')).join('\n')).toBe(200);
    expect(await back.text()).toContain('<meta http-equiv="refresh" content="0;url=/console/">');
    const session = await sessionOf(browser);
    expect(session.body).toMatchObject({ user: { email: 'dispatcher@alpha.example', role: 'dispatcher' }, commands: true });
    expect(browser.cookie(new URL(svc.url).host, 'telematics_oidc')).toBeUndefined();
    const cookie = `telematics_console=${browser.cookie(new URL(svc.url).host, 'telematics_console')}`;
    expect((await svc.request('GET', '/console/api/vehicle', { headers: { cookie } })).status).toBe(200);
    const admin = await addPerson(svc, 'alpha', 'owner', 'owner-reading-the-trail@alpha.example');
    const { consoleSignIn } = await import('../support/console-people.js');
    const audit = await svc.request('GET', '/console/api/audit?action=user.signed_in&target=dispatcher@alpha.example', { headers: { cookie: `telematics_console=${await consoleSignIn(svc, admin)}` } });
    expect(audit.body.data[0]).toMatchObject({ actor: { kind: 'user', id: 'dispatcher@alpha.example' }, outcome: 'success', details: { second_factor: 'sso' } });
  });

  it.each([
    ['an e-mail nobody invited', 'stranger', 'unknown-user'],
    ['an e-mail the provider has not verified', 'unverified', 'unverified'],
    ['a person of another company', 'beta', 'unknown-user'],
    ['a person who has not yet set a password (invited, or reset)', 'invited', 'password-first'],
    ['a person with a second factor here, signed in at the provider with a password alone', 'admin-password', 'second-factor'],
  ])('when the provider vouches for %s, then nobody is signed in and the sign-in page is told why', async (_label, as, reason) => {
    const browser = new Browser();
    const res = await browser.get(await throughProvider(browser, as));
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 303, location: `/console/#sso=${reason}` });
    expect((await sessionOf(browser)).status).toBe(204);
  });

  it('when another provider account claims the e-mail of a person whose first sign-on was from their own, then it is refused until a reset unbinds it', async () => {
    const browser = new Browser();
    const res = await browser.get(await throughProvider(browser, 'dispatcher-again'));
    expect(res.headers.get('location')).toBe('/console/#sso=unknown-user');
    expect((await svc.store.db.selectFrom('users').select('sso_subject').where('email', '=', 'dispatcher@alpha.example').executeTakeFirst())?.sso_subject).toBe('dispatcher');
    const deps = { store: svc.store, keyring: svc.keyring, clock: svc.clock, users: TEST_CONSOLE_USERS };
    const person = await svc.store.db.selectFrom('users').select('id').where('email', '=', 'dispatcher@alpha.example').executeTakeFirstOrThrow();
    const reset = await resetUserPassword(deps, { kind: 'operator', id: 'test' }, 'alpha', person.id);
    await takeUpPasswordLink(deps, reset.link.token, 'dispatcher has a new long password');
    const after = new Browser();
    expect((await after.get(await throughProvider(after, 'dispatcher-again'))).status).toBe(200);
    expect((await sessionOf(after)).body).toMatchObject({ user: { email: 'dispatcher@alpha.example' } });
    // Bound to that account now: the first one is the stranger.
    const first = new Browser();
    expect((await first.get(await throughProvider(first, 'dispatcher'))).headers.get('location')).toBe('/console/#sso=unknown-user');
    // Bound back to the dispatcher's own account, for the tests after this one.
    await takeUpPasswordLink(deps, (await resetUserPassword(deps, { kind: 'operator', id: 'test' }, 'alpha', person.id)).link.token, 'dispatcher has a new long password');
    expect((await first.get(await throughProvider(first, 'dispatcher'))).status).toBe(200);
  });

  it('when the callback comes to another browser, is replayed, or carries a forged state, then it signs nobody in', async () => {
    const browser = new Browser();
    const callback = await throughProvider(browser, 'dispatcher');
    // Another browser: no cookie of the start.
    const other = new Browser();
    expect((await other.get(callback)).headers.get('location')).toBe('/console/#sso=expired');
    // A forged state with this browser's cookie.
    const pending = browser.cookie(new URL(svc.url).host, 'telematics_oidc')!;
    const forged = new URL(callback);
    forged.searchParams.set('state', 'not-the-state');
    expect((await browser.get(forged.href)).headers.get('location')).toBe('/console/#sso=provider');
    // The real one once (the cookie put back as the browser had it), then the same code again.
    browser.setCookie(new URL(svc.url).host, 'telematics_oidc', pending);
    expect((await browser.get(callback)).status).toBe(200);
    browser.setCookie(new URL(svc.url).host, 'telematics_oidc', pending);
    expect((await browser.get(callback)).headers.get('location')).toBe('/console/#sso=provider');
  });

  it('when the provider says it asked for a second factor too, then a person who has one here signs in', async () => {
    const browser = new Browser();
    expect((await browser.get(await throughProvider(browser, 'admin-otp'))).status, svc.logs.filter((l) => l.includes('single sign-on')).slice(-1).join('')).toBe(200);
    expect((await sessionOf(browser)).body).toMatchObject({ user: { email: 'admin@alpha.example', role: 'admin' } });
  });

  it('when the provider refuses, or its answer is not the service\'s to read, then the sign-in page is told; nothing is a 500', async () => {
    const browser = new Browser();
    const state = new URL((await browser.get(`${svc.url}/console/oidc/start`)).headers.get('location')!).searchParams.get('state')!;
    // An error with another state is not believed: it is not the answer to this browser's sign-in.
    expect((await browser.get(`${svc.url}/console/oidc/callback?error=access_denied&state=x`)).headers.get('location')).toBe('/console/#sso=provider');
    await browser.get(`${svc.url}/console/oidc/start`).then((res) => browser.follow(res.headers.get('location')!, () => true));
    const again = new URL((await browser.get(`${svc.url}/console/oidc/start`)).headers.get('location')!).searchParams.get('state')!;
    expect(again).not.toBe(state);
    expect((await browser.get(`${svc.url}/console/oidc/callback?error=access_denied&state=${again}&iss=${encodeURIComponent(issuer)}`)).headers.get('location')).toBe('/console/#sso=refused');
    for (const query of ['', '?code=x', '?state=%00', `?code=${'x'.repeat(5000)}&state=y`]) {
      const res = await new Browser().get(`${svc.url}/console/oidc/callback${query}`);
      expect(res.status, query).toBe(303);
    }
  });
});

describe('single sign-on not set up', () => {
  it('when no provider is configured, then nothing offers it and its routes are 404; a provider that cannot be reached sends the page back with the reason', async () => {
    const off = await startTestService('sqlite', undefined, { http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 60 * MIN }, basemap: null, users: TEST_CONSOLE_USERS } } });
    const down = await startTestService('sqlite', undefined, {
      http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 60 * MIN }, basemap: null, users: TEST_CONSOLE_USERS, oidc: { issuer: `http://127.0.0.1:${await freePort()}`, companyId: 'alpha', clientId: 'x', name: 'Nobody' } } },
    });
    try {
      expect((await off.request('GET', '/console/sign-in-options')).body).toEqual({ sso: null });
      expect((await off.request('GET', '/console/oidc/start')).status).toBe(404);
      expect((await off.request('GET', '/console/oidc/callback?code=x')).status).toBe(404);
      const res = await fetch(`${down.url}/console/oidc/start`, { redirect: 'manual' });
      expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 303, location: '/console/#sso=provider' });
    } finally {
      await Promise.all([off.close(), down.close()]);
    }
  });
});
