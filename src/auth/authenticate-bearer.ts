/**
 * Bearer authentication of D2/D3: a valid signature and claims are not enough; the application
 * must still exist, be enabled and have the credentials version the token was issued under, so
 * `app disable` and secret rotation take effect on the next request.
 */
import { errors, ServiceError } from '../domain/errors.js';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findApplicationById } from '../store/applications-queries.js';
import type { Keyring } from '../security/keyring.js';
import { TokenRejected, verifyAccessToken, type TokenSettings } from '../security/access-tokens.js';
import type { VerifiedTokenCache } from './verified-token-cache.js';
import { scopeMaskOf, type ScopeMask } from '../domain/scopes.js';
import type { Role } from '../domain/roles.js';

/** Who is calling: the application and its company. */
export interface Principal {
  readonly applicationId: string;
  readonly clientId: string;
  readonly companyId: string;
  /** The application's sealed sign-secret as read for this request (commands check signatures with it); null when it has none. */
  readonly signSecretSealed: string | null;
  /**
   * The application's scopes as they are now (domain/scopes.ts), not as the token was issued: a
   * change of scopes applies to the next request, as a rotation does (the registry change sends
   * every remembered caller through this check again).
   */
  readonly scopes: ScopeMask;
  /**
   * The person behind a console session, when it is one's: the application is then the company's
   * console application (users/console-application.ts) and `scopes` the person's role's.
   */
  readonly user?: SessionUser;
}

export interface SessionUser {
  readonly id: string;
  readonly email: string;
  readonly role: Role;
}

/**
 * The `Authorization` header's bearer credentials (scheme case-insensitive, RFC 7235): undefined
 * when the header is absent or of another scheme; throws when it says Bearer but is malformed.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || !/^bearer(\s|$)/i.test(header)) return undefined;
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!m) throw new ServiceError(errors.invalidToken);
  return m[1];
}

export async function authenticateBearer(
  store: StoreConnection, keyring: Keyring, settings: TokenSettings, header: string | undefined, now: number, verified?: VerifiedTokenCache,
): Promise<{ principal: Principal; expiresAt: number } | { rejected: ServiceError; reason: string }> {
  let token: string | undefined;
  try {
    token = bearerToken(header);
  } catch {
    return { rejected: new ServiceError(errors.invalidToken), reason: 'malformed Authorization header' };
  }
  if (token === undefined) return { rejected: new ServiceError(errors.notAuthenticated), reason: 'no bearer token' };
  try {
    let claims = verified?.get(token, now);
    if (claims === undefined) {
      claims = await verifyAccessToken(token, now, keyring.jwt, settings);
      verified?.set(token, claims);
    }
    const applicationId = claims.applicationId;
    const app = await cachedRegistryRead(store, `application:${applicationId}`, () => findApplicationById(store.db, applicationId));
    if (!app) return { rejected: new ServiceError(errors.invalidToken), reason: 'application no longer exists' };
    if (app.enabled !== 1) return { rejected: new ServiceError(errors.invalidToken), reason: 'application disabled' };
    if (app.credentials_version !== claims.credentialsVersion || app.company_id !== claims.companyId || app.client_id !== claims.clientId) {
      return { rejected: new ServiceError(errors.invalidToken), reason: 'credentials changed since the token was issued' };
    }
    const principal = { applicationId: app.id, clientId: app.client_id, companyId: app.company_id, signSecretSealed: app.sign_secret_sealed, scopes: scopeMaskOf(app.scopes) };
    return { principal, expiresAt: claims.expiresAt };
  } catch (error) {
    if (error instanceof TokenRejected) return { rejected: new ServiceError(errors.invalidToken), reason: error.message };
    throw error;
  }
}
