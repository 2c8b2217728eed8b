/**
 * /operator/api/applications: a company's applications and their credentials (`admin app`).
 * New credentials, and rotated secrets, are answered once (`no-store`): the service keeps the
 * client secret's keyed hash and the sign-secret sealed, never a readable copy.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors, ServiceError } from '../../domain/errors.js';
import { applicationSettingsOf, changeApplication, onlyFields, scopesOf, tokenLifetimeOf } from '../../registry/application-changes.js';
import { createApplication, RegistryError, rotateApplicationSecrets, type SecretKind } from '../../registry/manage-applications.js';
import { findApplicationByClientId, listApplications } from '../../store/applications-queries.js';
import type { AppDeps } from '../app-deps.js';
import { operatorActor } from './operator-request.js';
import { applicationAnswer, registryCall } from './registry-answers.js';
import { ClientIdParams, CompanyQuery, EntryBody } from './operator-schemas.js';

export function applicationRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.store.db;
    const answer = async (clientId: string) => applicationAnswer((await findApplicationByClientId(db, clientId))!);

    app.get('/applications', { schema: { querystring: CompanyQuery } }, async (request) => {
      const { company } = request.query;
      if (company === undefined || company === '') throw new ServiceError(errors.registryEntryInvalid, { problem: 'company: is required (the list is one company\'s applications)' });
      return { data: (await listApplications(db, company)).map(applicationAnswer) };
    });

    app.post('/applications', { schema: { body: EntryBody } }, async (request, reply) => {
      const credentials = await registryCall(() => {
        const body = request.body;
        onlyFields(body, ['company', 'name', 'token_lifetime', 'scopes']);
        if (typeof body.company !== 'string' || typeof body.name !== 'string') throw new RegistryError('company and name: are required');
        const tokenLifetime = tokenLifetimeOf(body.token_lifetime);
        const scopes = scopesOf(body.scopes);
        return createApplication(db, deps.keyring, {
          companyId: body.company, name: body.name, ...(tokenLifetime === undefined ? {} : { tokenLifetime }), ...(scopes === undefined ? {} : { scopes }),
        }, deps.clock.now(), operatorActor(request));
      });
      return reply.code(201).send({ ...(await answer(credentials.client_id)), credentials });
    });

    app.patch('/applications/:client_id', { schema: { params: ClientIdParams, body: EntryBody } }, async (request) => {
      const row = await registryCall(async () => changeApplication(db, request.params.client_id, applicationSettingsOf(request.body), deps.clock.now(), operatorActor(request)));
      return applicationAnswer(row);
    });

    // The body is optional: without one, both secrets are replaced.
    app.post('/applications/:client_id/secrets', { schema: { params: ClientIdParams } }, async (request) => {
      const credentials = await registryCall(async () => {
        const body = request.body ?? {};
        if (typeof body !== 'object' || Array.isArray(body)) throw new RegistryError('the body must be a JSON object');
        onlyFields(body as Record<string, unknown>, ['only']);
        const only = (body as Record<string, unknown>).only ?? 'both';
        if (only !== 'client' && only !== 'sign' && only !== 'both') throw new RegistryError('only: must be client, sign or both');
        return rotateApplicationSecrets(db, deps.keyring, request.params.client_id, only as SecretKind, deps.clock.now(), operatorActor(request));
      });
      return { ...(await answer(credentials.client_id)), credentials };
    });
  };
}
