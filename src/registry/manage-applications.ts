/** Operator actions on one application: create, rotate secrets, enable or disable. */
import { randomUUID } from 'node:crypto';
import { CONSOLE_APPLICATION_NAME, DEFAULT_TOKEN_LIFETIME } from '../domain/vehicle.js';
import { scopesText, type Scope } from '../domain/scopes.js';
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
import { CLI_OPERATOR, type AuditActor } from '../domain/audit-chain.js';
import { appendAuditEntries } from '../store/audit-queries.js';
import { inTransaction } from '../store/in-transaction.js';

/** `write` and its audit entry in one transaction: an application's credentials change only with a record of it. */
function audited(db: Db, companyId: string, clientId: string, action: string, details: Record<string, unknown>, now: number, actor: AuditActor, write: (trx: Db) => Promise<unknown>): Promise<void> {
  return inTransaction(db, async (trx) => {
    await write(trx);
    await appendAuditEntries(trx, [{ companyId, actor, action, target: clientId, outcome: 'success', details }], now);
  });
}

/**
 * An operator mistake, reported in one line, nothing changed: a value the entry may not have
 * (`invalid`), an entry that is not there (`unknown`) or already is (`exists`).
 */
export class RegistryError extends Error {
  constructor(message: string, readonly kind: 'invalid' | 'unknown' | 'exists' = 'invalid') {
    super(message);
    this.name = 'RegistryError';
  }
}

export interface NewApplication {
  readonly companyId: string;
  readonly name: string;
  readonly tokenLifetime?: number;
  /** Every scope when left out. */
  readonly scopes?: readonly Scope[] | '*';
}

export async function createApplication(db: Db, keyring: Keyring, input: NewApplication, now: number, actor = CLI_OPERATOR): Promise<IssuedApplicationCredentials> {
  if (!IDENTIFIER_PATTERN.test(input.name)) throw new RegistryError(`name "${input.name}" is invalid (${IDENTIFIER_RULE})`);
  if (!(await findCompany(db, input.companyId))) throw new RegistryError(`unknown company "${input.companyId}"`);
  if (await findApplicationByName(db, input.companyId, input.name)) throw new RegistryError(`company "${input.companyId}" already has an application named "${input.name}"`, 'exists');
  const id = randomUUID();
  const credentials = { client_id: generateClientId(), client_secret: generateClientSecret(), sign_secret: generateSignSecret() };
  await audited(db, input.companyId, credentials.client_id, 'application.created', { name: input.name }, now, actor, (trx) => insertApplication(trx, {
    id, company_id: input.companyId, name: input.name, client_id: credentials.client_id,
    client_secret_hash: hashClientSecret(credentials.client_secret, keyring),
    sign_secret_sealed: sealSignSecret(id, credentials.sign_secret, keyring),
    token_lifetime: input.tokenLifetime ?? DEFAULT_TOKEN_LIFETIME, enabled: 1, credentials_version: 1,
    scopes: scopesText(input.scopes ?? '*'),
    created_at: now, updated_at: now,
  }));
  return { company: input.companyId, application: input.name, ...credentials };
}

async function requireApplication(db: Db, clientId: string): Promise<ApplicationRow> {
  const row = await findApplicationByClientId(db, clientId);
  if (!row) throw new RegistryError(`unknown client_id "${clientId}"`, 'unknown');
  return row;
}

export type SecretKind = 'client' | 'sign' | 'both';

/** New secrets replace the old at once: tokens issued before the rotation stop working. */
export async function rotateApplicationSecrets(db: Db, keyring: Keyring, clientId: string, which: SecretKind, now: number, actor = CLI_OPERATOR): Promise<IssuedApplicationCredentials> {
  const row = await requireApplication(db, clientId);
  // A company's console application acts for its people with every scope; its client secret is
  // made and forgotten so that no token of it is ever issued. A new one would be exactly that.
  if (row.name === CONSOLE_APPLICATION_NAME && which !== 'sign') {
    throw new RegistryError(`"${clientId}" is the company's console application: its client secret is never issued; rotate its sign-secret only (--only sign, which ends its people's sessions), or disable it`);
  }
  const clientSecret = which === 'sign' ? undefined : generateClientSecret();
  const signSecret = which === 'client' ? undefined : generateSignSecret();
  await audited(db, row.company_id, row.client_id, 'application.rotated', { secrets: which }, now, actor, (trx) => updateApplication(trx, row.id, {
    ...(clientSecret ? { client_secret_hash: hashClientSecret(clientSecret, keyring) } : {}),
    ...(signSecret ? { sign_secret_sealed: sealSignSecret(row.id, signSecret, keyring) } : {}),
    bumpCredentials: true,
  }, now));
  return {
    company: row.company_id, application: row.name, client_id: row.client_id,
    ...(clientSecret ? { client_secret: clientSecret } : {}),
    ...(signSecret ? { sign_secret: signSecret } : {}),
  };
}

/** Disabling refuses new tokens and makes every token and signature of the application fail from now on. */
export async function setApplicationEnabled(db: Db, clientId: string, enabled: boolean, now: number, actor = CLI_OPERATOR): Promise<ApplicationRow> {
  const row = await requireApplication(db, clientId);
  if ((row.enabled === 1) !== enabled) {
    await audited(db, row.company_id, row.client_id, enabled ? 'application.enabled' : 'application.disabled', {}, now, actor,
      (trx) => updateApplication(trx, row.id, { enabled: enabled ? 1 : 0, bumpCredentials: true }, now));
  }
  return (await findApplicationByClientId(db, clientId))!;
}

export async function setApplicationTokenLifetime(db: Db, clientId: string, seconds: number, now: number, actor = CLI_OPERATOR): Promise<void> {
  const row = await requireApplication(db, clientId);
  // An unchanged lifetime is no change: the console's edit form sends every field.
  if (row.token_lifetime === seconds) return;
  await audited(db, row.company_id, row.client_id, 'application.updated', { token_lifetime: seconds }, now, actor, (trx) => updateApplication(trx, row.id, { token_lifetime: seconds }, now));
}

/**
 * Replaces the application's scopes. The registry change reaches every process's authentication
 * (as a rotation does), so the next request of any of its tokens is judged by the new scopes;
 * tokens stay valid otherwise. Answers the stored text.
 */
export async function setApplicationScopes(db: Db, clientId: string, scopes: readonly Scope[] | '*', now: number, actor = CLI_OPERATOR): Promise<string> {
  const row = await requireApplication(db, clientId);
  const text = scopesText(scopes);
  if (row.scopes !== text) {
    await audited(db, row.company_id, row.client_id, 'application.scopes_changed', { scopes: text, previous: row.scopes }, now, actor,
      (trx) => updateApplication(trx, row.id, { scopes: text }, now));
  }
  return text;
}
