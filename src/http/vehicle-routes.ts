import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { VehicleParams } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { formatIsoLocal } from '../domain/time.js';
import { isValidVin, VIN_LENGTH } from '../domain/vin.js';
import { findCompanyVehicle, listCompanyVehicles, type VehicleRecord } from '../store/vehicles-queries.js';
import { cachedRegistryRead, NOT_CACHED, peekRegistry } from '../store/registry-cache.js';
import { principalOf } from './authenticate-hook.js';
import { AUTH_ERRORS, bearerSecurity, errorResponses, PATH_ERRORS } from './schemas.js';
import { compressResponses } from './compression.js';
import type { AppDeps } from './app-deps.js';

function toResource(v: VehicleRecord) {
  return {
    company: v.companyName, vin: v.vin, plate: v.plate, oem: v.oem, model: v.model,
    year: v.year, status: v.status, created: formatIsoLocal(v.createdAt),
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** GET /vehicle and GET /vehicle/{vin}; registered behind the authentication hook. */
export function vehicleRoutes(deps: AppDeps): FastifyPluginAsync {
  /**
   * Each record's resource, made once: records come from the registry cache, shared and never
   * modified (a registry change loads new ones), and formatting `created` was most of the
   * list's own work (20 dates a request).
   */
  const resources = new WeakMap<VehicleRecord, ReturnType<typeof toResource>>();
  const resourceOf = (v: VehicleRecord): ReturnType<typeof toResource> => {
    let resource = resources.get(v);
    if (resource === undefined) resources.set(v, (resource = toResource(v)));
    return resource;
  };

  /**
   * One vehicle's answer, serialized once by the route's own serializer (its response schema) and
   * sent as it is afterwards: the record never changes (a registry change loads a new one).
   */
  const answers = new WeakMap<VehicleRecord, string>();
  const answerVehicle = (reply: FastifyReply, vehicle: VehicleRecord | undefined): string => {
    if (!vehicle) throw new ServiceError(errors.vinNotFound);
    let json = answers.get(vehicle);
    if (json === undefined) answers.set(vehicle, (json = reply.serialize(resourceOf(vehicle)) as string));
    reply.type(JSON_TYPE);
    return json;
  };

  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    // The list grows with the fleet and is compressed, in a scope of its own: one vehicle is too
    // small to gain from it.
    await app.register(async (list) => {
      await compressResponses(list);
      list.get('/vehicle', {
        schema: {
          operationId: 'listVehicles',
          summary: "List the company's vehicles",
          description: 'Every vehicle connected to the token\'s company, in any status, ordered by VIN.',
          tags: ['vehicles'],
          security: bearerSecurity,
          response: { 200: Type.Array(Type.Ref('Vehicle')), ...errorResponses(AUTH_ERRORS) },
        },
      }, async (request) => {
        const { companyId } = principalOf(request);
        const vehicles = await cachedRegistryRead(deps.store, `vehicles:${companyId}`, () => listCompanyVehicles(deps.store.db, companyId));
        return vehicles.map(resourceOf);
      });
    });

    app.get('/vehicle/:vin', {
      schema: {
        operationId: 'getVehicle',
        summary: 'Read one vehicle by VIN',
        description: 'A vehicle of the token\'s company, in any status. A VIN that is unknown or another company\'s answers the same 404.',
        tags: ['vehicles'],
        security: bearerSecurity,
        params: VehicleParams,
        response: {
          200: Type.Ref('Vehicle'),
          ...errorResponses(AUTH_ERRORS, PATH_ERRORS, 'vinNotFound'),
        },
      },
    }, (request, reply) => {
      const { vin } = request.params;
      const { companyId } = principalOf(request);
      // With the VIN's length fixed, a key names one company and one VIN whatever characters the
      // two hold, so the full check below can wait for a cache miss: only a VIN that passed it was
      // ever read into the cache.
      if (vin.length !== VIN_LENGTH) throw new ServiceError(errors.vinNotFound);
      const key = `vehicle:${companyId}:${vin}`;
      // Answered without a promise when the registry cache can vouch for the row.
      const known = peekRegistry<VehicleRecord | undefined>(deps.store, key);
      if (known !== NOT_CACHED) return answerVehicle(reply, known);
      if (!isValidVin(vin)) throw new ServiceError(errors.vinNotFound);
      return cachedRegistryRead(deps.store, key, () => findCompanyVehicle(deps.store.db, companyId, vin)).then((vehicle) => answerVehicle(reply, vehicle));
    });
  };
}
