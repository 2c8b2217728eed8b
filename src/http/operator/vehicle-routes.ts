/**
 * /operator/api/vehicles: one company's vehicles and their trackers (`admin vehicle`). A list is
 * one company's (`?company=`): a service may carry a hundred thousand vehicles, a page one fleet.
 * A vehicle's tracker is its `device` (`{protocol, id}`, null removes it), as in the fleet file.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors, ServiceError } from '../../domain/errors.js';
import { addVehicle, changeVehicle } from '../../registry/registry-entries.js';
import { findVehicleRow } from '../../store/registry-queries.js';
import { findCompanyVehicle, listCompanyVehicles } from '../../store/vehicles-queries.js';
import type { AppDeps } from '../app-deps.js';
import { registryDepsFor } from './operator-request.js';
import { registryCall, vehicleAnswer } from './registry-answers.js';
import { CompanyQuery, EntryBody, VinParams } from './operator-schemas.js';

export function vehicleRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const answer = async (vin: string) => {
      const row = (await findVehicleRow(deps.store.db, vin))!;
      return vehicleAnswer((await findCompanyVehicle(deps.store.db, row.company_id, vin))!);
    };

    app.get('/vehicles', { schema: { querystring: CompanyQuery } }, async (request) => {
      const { company } = request.query;
      if (company === undefined || company === '') throw new ServiceError(errors.registryEntryInvalid, { problem: 'company: is required (the list is one company\'s vehicles)' });
      return { data: (await listCompanyVehicles(deps.store.db, company)).map(vehicleAnswer) };
    });

    app.post('/vehicles', { schema: { body: EntryBody } }, async (request, reply) => {
      const { company, ...fields } = request.body;
      const { vin } = await registryCall(() => addVehicle(registryDepsFor(deps, request), company, fields));
      return reply.code(201).send(await answer(vin));
    });

    app.patch('/vehicles/:vin', { schema: { params: VinParams, body: EntryBody } }, async (request) => {
      const { vin } = await registryCall(() => changeVehicle(registryDepsFor(deps, request), request.params.vin, request.body));
      return answer(vin);
    });
  };
}
