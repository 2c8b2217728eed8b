/**
 * The company's console application: the caller a company's people act as. Commands must come
 * from an application (they are read back by the application that sent them, and are signed with
 * its sign-secret); the service holds this one's sign-secret and signs a person's commands with
 * it, so the people of a company share one command history in the console and no person ever
 * holds an API secret. Its client secret is random and forgotten: `/token` never answers it. Its
 * name and client id start with a dot, which no operator-given identifier can, so it never
 * collides with the fleet file's applications. Disabling it stops the people's commands.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { CONSOLE_APPLICATION_NAME, DEFAULT_TOKEN_LIFETIME } from '../domain/vehicle.js';
import { findApplicationByClientId, insertApplicationIfAbsent, type ApplicationRow } from '../store/applications-queries.js';
import type { Db } from '../store/connection.js';
import type { Keyring } from '../security/keyring.js';
import { generateSignSecret } from '../security/generated-secrets.js';
import { hashClientSecret, sealSignSecret } from '../registry/application-secrets.js';

export { CONSOLE_APPLICATION_NAME };

export const consoleClientId = (companyId: string): string => `.console.${createHash('sha256').update(companyId).digest('hex').slice(0, 24)}`;

/** The company's console application, created the first time one of its people needs it. */
export async function ensureConsoleApplication(db: Db, keyring: Keyring, companyId: string, now: number): Promise<ApplicationRow> {
  const clientId = consoleClientId(companyId);
  const found = await findApplicationByClientId(db, clientId);
  if (found) return found;
  const id = randomUUID();
  await insertApplicationIfAbsent(db, {
    id, company_id: companyId, name: CONSOLE_APPLICATION_NAME, client_id: clientId,
    client_secret_hash: hashClientSecret(randomBytes(32).toString('base64url'), keyring),
    sign_secret_sealed: sealSignSecret(id, generateSignSecret(), keyring),
    token_lifetime: DEFAULT_TOKEN_LIFETIME, enabled: 1, credentials_version: 1, scopes: '*', created_at: now, updated_at: now,
  });
  // Two first sign-ins at once: one insert wins, both read the winner.
  const created = await findApplicationByClientId(db, clientId);
  if (!created) throw new Error(`console application of company ${companyId} could not be created`);
  return created;
}
