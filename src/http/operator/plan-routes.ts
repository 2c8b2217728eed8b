/** /operator/api/plans: which datapoints and commands a company may use (`admin plan`). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { addPlan, changePlan } from '../../registry/registry-entries.js';
import { findPlan, listPlans } from '../../store/registry-queries.js';
import type { AppDeps } from '../app-deps.js';
import { registryDepsFor } from './operator-request.js';
import { planAnswer, registryCall } from './registry-answers.js';
import { EntryBody, NameParams } from './operator-schemas.js';

export function planRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/plans', async () => ({ data: (await listPlans(deps.store.db)).map(planAnswer) }));

    app.post('/plans', { schema: { body: EntryBody } }, async (request, reply) => {
      const { name } = await registryCall(() => addPlan(registryDepsFor(deps, request), request.body));
      return reply.code(201).send(planAnswer((await findPlan(deps.store.db, name))!));
    });

    app.patch('/plans/:name', { schema: { params: NameParams, body: EntryBody } }, async (request) => {
      const { name } = await registryCall(() => changePlan(registryDepsFor(deps, request), request.params.name, request.body));
      return planAnswer((await findPlan(deps.store.db, name))!);
    });
  };
}
