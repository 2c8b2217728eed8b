/**
 * Single sign-on with OpenID Connect (authorization code with PKCE, openid-client): the console
 * sends the person to the company's identity provider and takes them back at its callback. The
 * provider proves the e-mail; the service then signs in the person who has that e-mail, who must
 * have been invited (nobody joins a company by SSO alone). The state, nonce and PKCE verifier
 * of a sign-in in flight travel in a cookie sealed with the master key, bound to the browser that
 * started it (a callback in another browser, or replayed, fails). The provider's own second
 * factor stands in for the service's: an SSO sign-in asks for no TOTP code.
 */
import * as oidc from 'openid-client';
import type { AuditDraft } from '../domain/audit-chain.js';
import { errors, ServiceError } from '../domain/errors.js';
import type { Keyring } from '../security/keyring.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import { bindSsoSubject, findUserByEmail, type UserRow } from '../store/users-queries.js';
import type { UserDeps } from './user-deps.js';

export interface OidcSettings {
  /** The provider's issuer URL; its `/.well-known/openid-configuration` is read at the first sign-in. */
  readonly issuer: string;
  /** The one company whose people sign in there: a provider vouches for its own people only. */
  readonly companyId: string;
  readonly clientId: string;
  /** A confidential client's secret; absent for a public client (PKCE alone). */
  readonly clientSecret?: string | undefined;
  /** What the sign-in button names ("Sign in with …"). */
  readonly name: string;
  /** Where the provider sends the browser back; the console's `/console/oidc/callback` by default. */
  readonly redirectUri?: string | undefined;
}

/** What a sign-in in flight keeps between its start and the callback. */
interface Pending {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly redirectUri: string;
  readonly expiresAt: number;
}

/** A sign-in must come back within this long. */
export const OIDC_PENDING_MS = 10 * 60_000;
const SEALING_CONTEXT = 'oidc-sign-in';

/** Why a callback did not sign anyone in: a short code the sign-in page shows a text for. */
export type OidcFailure = 'expired' | 'refused' | 'provider' | 'unverified' | 'unknown-user' | 'second-factor' | 'password-first';

export class OidcSignInFailed extends Error {
  constructor(readonly reason: OidcFailure, detail: string) {
    super(detail);
  }
}

export class OidcSignIn {
  #configuration: Promise<oidc.Configuration> | undefined;

  constructor(readonly settings: OidcSettings, private readonly keyring: Keyring) {}

  /** The provider's metadata, read once; a failed read is tried again at the next sign-in. */
  #config(): Promise<oidc.Configuration> {
    this.#configuration ??= oidc.discovery(
      new URL(this.settings.issuer), this.settings.clientId, this.settings.clientSecret, undefined,
      // A provider on plain HTTP is a loopback one, a test's (the settings refuse any other).
      // ID tokens' signatures are checked against the provider's keys too, not only TLS.
      { execute: new URL(this.settings.issuer).protocol === 'http:' ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks], timeout: 10 },
    ).catch((error: unknown) => {
      this.#configuration = undefined;
      throw error;
    });
    return this.#configuration;
  }

  /** Where to send the browser, and the sealed cookie value that must come back with it. */
  async start(redirectUri: string, now: number): Promise<{ url: string; cookie: string }> {
    const config = await this.#config();
    const pending: Pending = {
      state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(),
      redirectUri: this.settings.redirectUri ?? redirectUri, expiresAt: now + OIDC_PENDING_MS,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: pending.redirectUri, scope: 'openid email', response_type: 'code',
      state: pending.state, nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier), code_challenge_method: 'S256',
    });
    return { url: url.href, cookie: sealSecret(JSON.stringify(pending), SEALING_CONTEXT, this.keyring.master) };
  }

  /** The e-mail the provider vouches for, and whether it says it asked for more than one factor (`amr`), from the callback's URL and the cookie of its start. */
  async finish(callbackUrl: URL, cookie: string | undefined, now: number): Promise<VouchedPerson> {
    const pending = this.#pendingOf(cookie, now);
    // The provider's answer is checked against what this browser started: state (before an
    // error it reports is believed), nonce, PKCE.
    const answered = new URL(pending.redirectUri);
    answered.search = callbackUrl.search;
    let claims: Readonly<Record<string, unknown>> | undefined;
    let idClaims: Readonly<Record<string, unknown>> | undefined;
    try {
      const config = await this.#config();
      const tokens = await oidc.authorizationCodeGrant(config, answered, {
        pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true,
      });
      claims = idClaims = tokens.claims();
      // A provider that keeps the e-mail out of the ID token (as the specification prefers when an
      // access token is issued) answers it at its userinfo endpoint, for the same subject.
      if (claims && typeof claims.email !== 'string') claims = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    } catch (error) {
      if (error instanceof oidc.AuthorizationResponseError) throw new OidcSignInFailed('refused', `the provider answered ${error.error}`.slice(0, 200));
      throw new OidcSignInFailed('provider', `the provider's answer did not hold: ${(error as Error).message}`.slice(0, 200));
    }
    const email = typeof claims?.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (email === '' || claims?.email_verified !== true) throw new OidcSignInFailed('unverified', 'the provider did not vouch for an e-mail (email_verified)');
    // How the person signed in is the ID token's to say (userinfo does not carry it).
    const amr = Array.isArray(idClaims?.amr) ? idClaims.amr.filter((m): m is string => typeof m === 'string') : [];
    const subject = typeof idClaims?.sub === 'string' ? idClaims.sub : '';
    if (subject === '' || subject.length > 255) throw new OidcSignInFailed('provider', 'the ID token names no subject (sub) this service can keep');
    return { email, subject, multiFactor: amr.some((m) => MULTI_FACTOR_METHODS.has(m)) };
  }

  #pendingOf(cookie: string | undefined, now: number): Pending {
    let pending: Pending | undefined;
    try {
      pending = cookie === undefined ? undefined : JSON.parse(openSecret(cookie, SEALING_CONTEXT, this.keyring.master)) as Pending;
    } catch {
      pending = undefined;
    }
    if (!pending || typeof pending.state !== 'string' || pending.expiresAt <= now) throw new OidcSignInFailed('expired', 'no sign-in of this browser is waiting for the provider');
    return pending;
  }
}

/** Who the provider vouches for: the e-mail, its own account id (`sub`), and whether it asked for a second factor. */
export interface VouchedPerson {
  readonly email: string;
  readonly subject: string;
  readonly multiFactor: boolean;
}

/** RFC 8176 methods that mean a second factor was used. */
const MULTI_FACTOR_METHODS = new Set(['mfa', 'otp', 'hwk', 'swk', 'sms', 'fpt', 'face', 'iris', 'retina', 'vbm']);

const signInEntry = (user: UserRow): AuditDraft => ({
  companyId: user.company_id, actor: { kind: 'user', id: user.email }, action: 'user.signed_in', target: user.email, outcome: 'success', details: { second_factor: 'sso' },
});

/**
 * The person the provider's e-mail names, with the sign-in in the audit trail. Refused: an e-mail
 * nobody of the provider's company has; a person with no password (not yet taken up their
 * invitation, or reset by an admin, as a suspected account is: the link comes first); a person
 * who enrolled a second factor here when the provider does not say it asked for one.
 */
export async function userOfSso(deps: Pick<UserDeps, 'store' | 'clock'>, companyId: string, vouched: VouchedPerson): Promise<UserRow> {
  const user = await findUserByEmail(deps.store.db, vouched.email);
  if (!user || user.company_id !== companyId) throw new OidcSignInFailed('unknown-user', 'nobody of the provider\'s company has that e-mail');
  if (user.password_hash === null) throw new OidcSignInFailed('password-first', 'the person has no password yet (invited, or reset)');
  if (user.totp_sealed !== null && !vouched.multiFactor) throw new OidcSignInFailed('second-factor', 'the person uses a second factor and the provider did not say it asked for one (amr)');
  // The first single sign-on that is let in binds the person to that provider account; another account that
  // later claims the same e-mail (renamed, recycled, or the provider's admin's doing) is not them.
  let bound = user.sso_subject;
  if (bound === null) {
    // Two first sign-ins racing: the one that bound wins, whichever this is.
    bound = (await bindSsoSubject(deps.store.db, user.id, vouched.subject)) ? vouched.subject : (await findUserByEmail(deps.store.db, vouched.email))?.sso_subject ?? null;
  }
  if (bound !== vouched.subject) throw new OidcSignInFailed('unknown-user', 'another account of the provider signed this person in first (a reset unbinds it)');
  await appendAuditEntries(deps.store.db, [signInEntry(user)], deps.clock.now());
  return user;
}

/** For routes that need SSO set up: 404 where it is not. */
export function requireOidc(oidcSignIn: OidcSignIn | undefined): OidcSignIn {
  if (!oidcSignIn) throw new ServiceError(errors.notFound);
  return oidcSignIn;
}
