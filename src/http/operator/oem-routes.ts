/**
 * /operator/api/oems: automakers, their connector and capabilities (`admin oem`). A new OEM's
 * ingest key, and a replaced one, is answered once (`no-store`); only its keyed hash is kept.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { addOem, changeOem } from '../../registry/registry-entries.js';
import { findOem, listOems } from '../../store/registry-queries.js';
import type { AppDeps } from '../app-deps.js';
import { registryDepsFor } from './operator-request.js';
import { oemAnswer, registryCall } from './registry-answers.js';
import { EntryBody, NameParams } from './operator-schemas.js';

export function oemRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const answer = async (name: string) => oemAnswer((await findOem(deps.store.db, name))!);
    app.get('/oems', async () => ({ data: (await listOems(deps.store.db)).map(oemAnswer) }));

    app.post('/oems', { schema: { body: EntryBody } }, async (request, reply) => {
      const added = await registryCall(() => addOem(registryDepsFor(deps, request), request.body));
      return reply.code(201).send({ ...(await answer(added.name)), ingest_key: added.ingest_key });
    });

    app.patch('/oems/:name', { schema: { params: NameParams, body: EntryBody } }, async (request) => {
      const { name } = await registryCall(() => changeOem(registryDepsFor(deps, request), request.params.name, request.body));
      return answer(name);
    });

    app.post('/oems/:name/ingest-key', { schema: { params: NameParams } }, async (request) => {
      const changed = await registryCall(() => changeOem(registryDepsFor(deps, request), request.params.name, {}, true));
      return { ...(await answer(changed.name)), ingest_key: changed.ingest_key };
    });
  };
}
