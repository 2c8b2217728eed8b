/** Operator actions on one application: create, rotate secrets, enable or disable. */
import { randomUUID } from 'node:crypto';
import { DEFAULT_TOKEN_LIFETIME } from '../domain/vehicle.js';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../domain/fleet-file.js';
import type { Db } from '../store/connection.js';
import {
  findApplicationByClientId, findApplicationByName, insertApplication, updateApplication, type ApplicationRow,
} from '../store/applications-queries.js';
import { findCompany } from '../store/registry-queries.js';
import type { Keyring } from '../security/keyring.js';
import { generateClientId, generateClientSecret, generateSignSecret } from '../security/generated-secrets.js';
import { hashClientSecret, sealSignSecret } from './application-secrets.js';
import type { IssuedApplicationCredentials } from './issued-credentials.js';

/** An operator mistake (unknown company, duplicate name…): reported in one line, nothing changed. */
export class RegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryError';
  }
}

export interface NewApplication {
  readonly companyId: string;
  readonly name: string;
  readonly tokenLifetime?: number;
}

export async function createApplication(db: Db, keyring: Keyring, input: NewApplication, now: number): Promise<IssuedApplicationCredentials> {
  if (!IDENTIFIER_PATTERN.test(input.name)) throw new RegistryError(`name "${input.name}" is invalid (${IDENTIFIER_RULE})`);
  if (!(await findCompany(db, input.companyId))) throw new RegistryError(`unknown company "${input.companyId}"`);
  if (await findApplicationByName(db, input.companyId, input.name)) throw new RegistryError(`company "${input.companyId}" already has an application named "${input.name}"`);
  const id = randomUUID();
  const credentials = { client_id: generateClientId(), client_secret: generateClientSecret(), sign_secret: generateSignSecret() };
  await insertApplication(db, {
    id, company_id: input.companyId, name: input.name, client_id: credentials.client_id,
    client_secret_hash: hashClientSecret(credentials.client_secret, keyring),
    sign_secret_sealed: sealSignSecret(id, credentials.sign_secret, keyring),
    token_lifetime: input.tokenLifetime ?? DEFAULT_TOKEN_LIFETIME, enabled: 1, credentials_version: 1,
    created_at: now, updated_at: now,
  });
  return { company: input.companyId, application: input.name, ...credentials };
}

async function requireApplication(db: Db, clientId: string): Promise<ApplicationRow> {
  const row = await findApplicationByClientId(db, clientId);
  if (!row) throw new RegistryError(`unknown client_id "${clientId}"`);
  return row;
}

export type SecretKind = 'client' | 'sign' | 'both';

/** New secrets replace the old at once: tokens issued before the rotation stop working. */
export async function rotateApplicationSecrets(db: Db, keyring: Keyring, clientId: string, which: SecretKind, now: number): Promise<IssuedApplicationCredentials> {
  const row = await requireApplication(db, clientId);
  const clientSecret = which === 'sign' ? undefined : generateClientSecret();
  const signSecret = which === 'client' ? undefined : generateSignSecret();
  await updateApplication(db, row.id, {
    ...(clientSecret ? { client_secret_hash: hashClientSecret(clientSecret, keyring) } : {}),
    ...(signSecret ? { sign_secret_sealed: sealSignSecret(row.id, signSecret, keyring) } : {}),
    bumpCredentials: true,
  }, now);
  return {
    company: row.company_id, application: row.name, client_id: row.client_id,
    ...(clientSecret ? { client_secret: clientSecret } : {}),
    ...(signSecret ? { sign_secret: signSecret } : {}),
  };
}

/** Disabling refuses new tokens and makes every token and signature of the application fail from now on. */
export async function setApplicationEnabled(db: Db, clientId: string, enabled: boolean, now: number): Promise<ApplicationRow> {
  const row = await requireApplication(db, clientId);
  if ((row.enabled === 1) !== enabled) await updateApplication(db, row.id, { enabled: enabled ? 1 : 0, bumpCredentials: true }, now);
  return (await findApplicationByClientId(db, clientId))!;
}

export async function setApplicationTokenLifetime(db: Db, clientId: string, seconds: number, now: number): Promise<void> {
  const row = await requireApplication(db, clientId);
  await updateApplication(db, row.id, { token_lifetime: seconds }, now);
}
