/**
 * /operator/api/applications: a company's applications and their credentials (`admin app`).
 * New credentials, and rotated secrets, are answered once (`no-store`): the service keeps the
 * client secret's keyed hash and the sign-secret sealed, never a readable copy.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors, ServiceError } from '../../domain/errors.js';
import { MAX_TOKEN_LIFETIME, MIN_TOKEN_LIFETIME } from '../../domain/vehicle.js';
import { readScopeList, scopeListProblem, type Scope } from '../../domain/scopes.js';
import {
  createApplication, rotateApplicationSecrets, setApplicationEnabled, setApplicationScopes, setApplicationTokenLifetime, type SecretKind,
} from '../../registry/manage-applications.js';
import { findApplicationByClientId, listApplications } from '../../store/applications-queries.js';
import type { AppDeps } from '../app-deps.js';
import { operatorActor } from './operator-request.js';
import { applicationAnswer, registryCall } from './registry-answers.js';
import { ClientIdParams, CompanyQuery, EntryBody } from './operator-schemas.js';

const invalid = (problem: string) => new ServiceError(errors.registryEntryInvalid, { problem });

function tokenLifetimeOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_TOKEN_LIFETIME || value > MAX_TOKEN_LIFETIME) {
    throw invalid(`token_lifetime: must be an integer from ${MIN_TOKEN_LIFETIME} to ${MAX_TOKEN_LIFETIME} seconds`);
  }
  return value;
}

/** `"*"`, or a list of scope names. */
function scopesOf(value: unknown): readonly Scope[] | '*' | undefined {
  if (value === undefined) return undefined;
  const names = value === '*' ? ['*'] : value;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw invalid('scopes: must be "*" or a list of scope names');
  const problem = scopeListProblem(names as string[]);
  if (problem !== undefined) throw invalid(`scopes: ${problem}`);
  return readScopeList(names as string[]).scopes;
}

function onlyFields(body: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  const unknown = Object.keys(body).find((k) => !names.includes(k));
  if (unknown !== undefined) throw invalid(`${unknown}: is not a field here (${names.join(', ')})`);
}

export function applicationRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.store.db;
    const answer = async (clientId: string) => applicationAnswer((await findApplicationByClientId(db, clientId))!);

    app.get('/applications', { schema: { querystring: CompanyQuery } }, async (request) => ({
      data: (await listApplications(db, request.query.company || undefined)).map(applicationAnswer),
    }));

    app.post('/applications', { schema: { body: EntryBody } }, async (request, reply) => {
      const body = request.body;
      onlyFields(body, ['company', 'name', 'token_lifetime', 'scopes']);
      if (typeof body.company !== 'string' || typeof body.name !== 'string') throw invalid('company and name: are required');
      const tokenLifetime = tokenLifetimeOf(body.token_lifetime);
      const scopes = scopesOf(body.scopes);
      const credentials = await registryCall(() => createApplication(db, deps.keyring, {
        companyId: body.company as string, name: body.name as string,
        ...(tokenLifetime === undefined ? {} : { tokenLifetime }), ...(scopes === undefined ? {} : { scopes }),
      }, deps.clock.now(), operatorActor(request)));
      return reply.code(201).send({ ...(await answer(credentials.client_id)), credentials });
    });

    app.patch('/applications/:client_id', { schema: { params: ClientIdParams, body: EntryBody } }, async (request) => {
      const body = request.body;
      const clientId = request.params.client_id;
      onlyFields(body, ['enabled', 'token_lifetime', 'scopes']);
      if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw invalid('enabled: must be true or false');
      const tokenLifetime = tokenLifetimeOf(body.token_lifetime);
      const scopes = scopesOf(body.scopes);
      const actor = operatorActor(request);
      const now = deps.clock.now();
      if (!(await findApplicationByClientId(db, clientId))) throw new ServiceError(errors.registryEntryNotFound, { problem: `unknown client_id "${clientId}"` });
      await registryCall(async () => {
        if (tokenLifetime !== undefined) await setApplicationTokenLifetime(db, clientId, tokenLifetime, now, actor);
        if (scopes !== undefined) await setApplicationScopes(db, clientId, scopes, now, actor);
        if (typeof body.enabled === 'boolean') await setApplicationEnabled(db, clientId, body.enabled, now, actor);
      });
      return answer(clientId);
    });

    // The body is optional: without one, both secrets are replaced.
    app.post('/applications/:client_id/secrets', { schema: { params: ClientIdParams } }, async (request) => {
      const body = request.body ?? {};
      if (typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object');
      onlyFields(body as Record<string, unknown>, ['only']);
      const only = (body as Record<string, unknown>).only ?? 'both';
      if (only !== 'client' && only !== 'sign' && only !== 'both') throw invalid('only: must be client, sign or both');
      const credentials = await registryCall(() => rotateApplicationSecrets(db, deps.keyring, request.params.client_id, only as SecretKind, deps.clock.now(), operatorActor(request)));
      return { ...(await answer(credentials.client_id)), credentials };
    });
  };
}
