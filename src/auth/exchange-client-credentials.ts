/**
 * POST /token: client credentials for a bearer token. An unknown client id costs the same hash as
 * a wrong secret, so response time does not reveal which client ids exist.
 */
import { errors, ServiceError } from '../domain/errors.js';
import { IDENTIFIER_PATTERN } from '../domain/fleet-file.js';
import type { Db } from '../store/connection.js';
import { findApplicationByClientId, refreshClientSecretHash, type ApplicationRow } from '../store/applications-queries.js';
import type { Keyring } from '../security/keyring.js';
import { hashNeedsRefresh, hashSecret, verifySecret } from '../security/secret-hash.js';
import { scopeClaimOf, scopeMaskOf } from '../domain/scopes.js';
import { issueAccessToken, type TokenSettings } from '../security/access-tokens.js';

export interface IssuedToken {
  readonly token: string;
  readonly expiration: number;
}

/**
 * The application the credentials belong to, if they are right and it is enabled; throws the
 * interface's `Invalid client credentials.` otherwise (the three cases are indistinguishable).
 */
async function verifyClientCredentials(db: Db, keyring: Keyring, clientId: string, clientSecret: string): Promise<ApplicationRow> {
  // A client id that cannot exist (wrong shape, NUL bytes…) is refused like an unknown one,
  // without reaching the database.
  const app = IDENTIFIER_PATTERN.test(clientId) ? await findApplicationByClientId(db, clientId) : undefined;
  const storedHash = app?.client_secret_hash ?? hashSecret('no such client', keyring.master);
  const secretOk = verifySecret(clientSecret, storedHash, keyring.master);
  if (!app || !secretOk || app.enabled !== 1) throw new ServiceError(errors.invalidClientCredentials);
  if (hashNeedsRefresh(app.client_secret_hash, keyring.master)) {
    await refreshClientSecretHash(db, app.id, app.client_secret_hash, hashSecret(clientSecret, keyring.master));
  }
  return app;
}

export async function exchangeClientCredentials(
  db: Db, keyring: Keyring, settings: TokenSettings, clientId: string, clientSecret: string, now: number,
): Promise<IssuedToken> {
  const app = await verifyClientCredentials(db, keyring, clientId, clientSecret);
  const token = await issueAccessToken(
    { clientId: app.client_id, applicationId: app.id, companyId: app.company_id, credentialsVersion: app.credentials_version, lifetimeSeconds: app.token_lifetime, scope: scopeClaimOf(scopeMaskOf(app.scopes)) },
    now, keyring.jwt, settings,
  );
  return { token, expiration: app.token_lifetime };
}
