/** /operator/api/companies: the companies and their plans (`admin company`). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { addCompany, changeCompany } from '../../registry/registry-entries.js';
import { findCompany, listCompanies } from '../../store/registry-queries.js';
import type { AppDeps } from '../app-deps.js';
import { registryDepsFor } from './operator-request.js';
import { companyAnswer, registryCall } from './registry-answers.js';
import { EntryBody, IdParams } from './operator-schemas.js';

export function companyRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/companies', async () => ({ data: (await listCompanies(deps.store.db)).map(companyAnswer) }));

    app.post('/companies', { schema: { body: EntryBody } }, async (request, reply) => {
      const { id } = await registryCall(() => addCompany(registryDepsFor(deps, request), request.body));
      return reply.code(201).send(companyAnswer((await findCompany(deps.store.db, id))!));
    });

    app.patch('/companies/:id', { schema: { params: IdParams, body: EntryBody } }, async (request) => {
      const { id } = await registryCall(() => changeCompany(registryDepsFor(deps, request), request.params.id, request.body));
      return companyAnswer((await findCompany(deps.store.db, id))!);
    });
  };
}
