/**
 * An application's settings as a JSON body gives them (`{enabled, token_lifetime, scopes}`):
 * checked here, then changed together in one transaction, each change its own audit entry as
 * when the command line makes it.
 */
import type { AuditActor } from '../domain/audit-chain.js';
import { readScopeList, scopeListProblem, type Scope } from '../domain/scopes.js';
import { MAX_TOKEN_LIFETIME, MIN_TOKEN_LIFETIME } from '../domain/vehicle.js';
import type { Db } from '../store/connection.js';
import { findApplicationByClientId, type ApplicationRow } from '../store/applications-queries.js';
import { inTransaction } from '../store/in-transaction.js';
import { RegistryError, setApplicationEnabled, setApplicationScopes, setApplicationTokenLifetime } from './manage-applications.js';

export interface ApplicationSettings {
  readonly enabled?: boolean;
  readonly tokenLifetime?: number;
  readonly scopes?: readonly Scope[] | '*';
}

/** Only `names`: a body may not name a field the entry does not take. */
export function onlyFields(body: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  const unknown = Object.keys(body).find((k) => !names.includes(k));
  if (unknown !== undefined) throw new RegistryError(`${unknown}: is not a field here (${names.join(', ')})`);
}

export function tokenLifetimeOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_TOKEN_LIFETIME || value > MAX_TOKEN_LIFETIME) {
    throw new RegistryError(`token_lifetime: must be an integer from ${MIN_TOKEN_LIFETIME} to ${MAX_TOKEN_LIFETIME} seconds`);
  }
  return value;
}

/** `"*"`, or a list of scope names. */
export function scopesOf(value: unknown): readonly Scope[] | '*' | undefined {
  if (value === undefined) return undefined;
  const names = value === '*' ? ['*'] : value;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw new RegistryError('scopes: must be "*" or a list of scope names');
  const problem = scopeListProblem(names as string[]);
  if (problem !== undefined) throw new RegistryError(`scopes: ${problem}`);
  return readScopeList(names as string[]).scopes;
}

export function applicationSettingsOf(body: Readonly<Record<string, unknown>>): ApplicationSettings {
  onlyFields(body, ['enabled', 'token_lifetime', 'scopes']);
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw new RegistryError('enabled: must be true or false');
  const tokenLifetime = tokenLifetimeOf(body.token_lifetime);
  const scopes = scopesOf(body.scopes);
  return { ...(typeof body.enabled === 'boolean' ? { enabled: body.enabled } : {}), ...(tokenLifetime === undefined ? {} : { tokenLifetime }), ...(scopes === undefined ? {} : { scopes }) };
}

/** All of `settings` or none of them. */
export async function changeApplication(db: Db, clientId: string, settings: ApplicationSettings, now: number, actor: AuditActor): Promise<ApplicationRow> {
  return inTransaction(db, async (trx) => {
    if (!(await findApplicationByClientId(trx, clientId))) throw new RegistryError(`unknown client_id "${clientId}"`, 'unknown');
    if (settings.tokenLifetime !== undefined) await setApplicationTokenLifetime(trx, clientId, settings.tokenLifetime, now, actor);
    if (settings.scopes !== undefined) await setApplicationScopes(trx, clientId, settings.scopes, now, actor);
    if (settings.enabled !== undefined) await setApplicationEnabled(trx, clientId, settings.enabled, now, actor);
    return (await findApplicationByClientId(trx, clientId))!;
  });
}
