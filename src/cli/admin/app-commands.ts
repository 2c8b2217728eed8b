import type { Command } from 'commander';
import { MAX_TOKEN_LIFETIME, MIN_TOKEN_LIFETIME } from '../../domain/vehicle.js';
import { readScopeList, scopeListProblem, SCOPES, type Scope } from '../../domain/scopes.js';
import {
  createApplication, rotateApplicationSecrets, setApplicationEnabled, setApplicationScopes, setApplicationTokenLifetime, type SecretKind,
} from '../../registry/manage-applications.js';
import type { IssuedApplicationCredentials } from '../../registry/issued-credentials.js';
import { listApplications } from '../../store/applications-queries.js';
import { emit, table, UsageError, type Output } from '../output.js';
import { asUsage } from './admin-context.js';
import { withStore, withStoreOptions } from '../store-context.js';

function printCredentials(output: Output, credentials: IssuedApplicationCredentials): void {
  emit(output, credentials, () => [
    ...Object.entries(credentials).map(([k, v]) => `${k}=${v}`),
    '(secrets are shown only now: store them safely)',
  ].join('\n'));
}

function tokenLifetime(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < MIN_TOKEN_LIFETIME || n > MAX_TOKEN_LIFETIME) {
    throw new UsageError(`--token-lifetime must be an integer from ${MIN_TOKEN_LIFETIME} to ${MAX_TOKEN_LIFETIME} seconds`);
  }
  return n;
}

/** `--scopes vehicles:read,trips:read` (commas or spaces) or `--scopes '*'`. */
export function scopesOption(value: string): readonly Scope[] | '*' {
  const names = value.split(/[\s,]+/).filter((n) => n !== '');
  const problem = scopeListProblem(names);
  if (problem !== undefined) throw new UsageError(`--scopes ${problem}`);
  return readScopeList(names).scopes;
}


export function registerAppCommands(admin: Command): void {
  const app = admin.command('app').description('company applications and their credentials');

  withStoreOptions(app.command('create').description('issue credentials for a new application (printed once)'))
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--name <name>', 'application name, unique within the company')
    .option('--token-lifetime <seconds>', 'token lifetime (default 3600)')
    .option('--scopes <list>', `scopes, comma-separated, or '*' for every scope (default '*'): ${SCOPES.join(', ')}`)
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const lifetime = opts.tokenLifetime === undefined ? undefined : tokenLifetime(opts.tokenLifetime);
      const scopes = opts.scopes === undefined ? undefined : scopesOption(opts.scopes);
      const credentials = await asUsage(() => createApplication(ctx.store.db, ctx.keyring(), {
        companyId: opts.company!, name: opts.name!, ...(lifetime === undefined ? {} : { tokenLifetime: lifetime }), ...(scopes === undefined ? {} : { scopes }),
      }, Date.now()));
      printCredentials(ctx.output, credentials);
    }));

  withStoreOptions(app.command('list').description('list applications (never their secrets)'))
    .option('--company <id>', 'only this company')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = (await listApplications(ctx.store.db, opts.company)).map((a) => ({
        company: a.company_id, name: a.name, client_id: a.client_id, enabled: a.enabled === 1,
        token_lifetime: a.token_lifetime, has_sign_secret: a.sign_secret_sealed !== null, scopes: a.scopes,
      }));
      emit(ctx.output, rows, () => table(rows, ['company', 'name', 'client_id', 'enabled', 'token_lifetime', 'has_sign_secret', 'scopes']));
    }));

  withStoreOptions(app.command('rotate-secret').description('replace secrets (printed once); earlier tokens stop working'))
    .requiredOption('--client-id <id>', 'the application')
    .option('--only <which>', 'client or sign (default: both)')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const which = (opts.only ?? 'both') as SecretKind;
      if (!['client', 'sign', 'both'].includes(which)) throw new UsageError('--only must be client or sign');
      printCredentials(ctx.output, await asUsage(() => rotateApplicationSecrets(ctx.store.db, ctx.keyring(), opts.clientId!, which, Date.now())));
    }));

  for (const [name, enabled] of [['disable', false], ['enable', true]] as const) {
    withStoreOptions(app.command(name).description(enabled
      ? 'allow the application again (it needs new tokens)'
      : 'refuse the application from now on: no new tokens, and its tokens and signatures fail'))
      .requiredOption('--client-id <id>', 'the application')
      .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
        const row = await asUsage(() => setApplicationEnabled(ctx.store.db, opts.clientId!, enabled, Date.now()));
        emit(ctx.output, { client_id: row.client_id, enabled: row.enabled === 1 }, () => `${row.client_id}: ${enabled ? 'enabled' : 'disabled'}`);
      }));
  }

  withStoreOptions(app.command('set').description('change an application\'s settings'))
    .requiredOption('--client-id <id>', 'the application')
    .option('--token-lifetime <seconds>', 'lifetime of tokens issued from now on')
    .option('--scopes <list>', `the scopes from the next request on, comma-separated, or '*': ${SCOPES.join(', ')}`)
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      if (opts.tokenLifetime === undefined && opts.scopes === undefined) throw new UsageError('name what to change: --token-lifetime and/or --scopes');
      const seconds = opts.tokenLifetime === undefined ? undefined : tokenLifetime(opts.tokenLifetime);
      const scopes = opts.scopes === undefined ? undefined : scopesOption(opts.scopes);
      const now = Date.now();
      if (seconds !== undefined) await asUsage(() => setApplicationTokenLifetime(ctx.store.db, opts.clientId!, seconds, now));
      const stored = scopes === undefined ? undefined : await asUsage(() => setApplicationScopes(ctx.store.db, opts.clientId!, scopes, now));
      const result = { client_id: opts.clientId, ...(seconds === undefined ? {} : { token_lifetime: seconds }), ...(stored === undefined ? {} : { scopes: stored }) };
      emit(ctx.output, result, () => [
        ...(seconds === undefined ? [] : [`${opts.clientId}: token lifetime ${seconds} s`]),
        ...(stored === undefined ? [] : [`${opts.clientId}: scopes ${stored}`]),
      ].join('\n'));
    }));
}
