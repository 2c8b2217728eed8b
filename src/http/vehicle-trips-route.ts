import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { VehicleTripsRequest, VehicleTripsResponse } from '@telematics/contract';
import { queryVehicleTrips } from '../trips/query-trips.js';
import { principalOf } from './authenticate-hook.js';
import { AUTH_ERRORS, bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS } from './schemas.js';
import { Type } from 'typebox';
import { compressResponses } from './compression.js';
import type { AppDeps } from './app-deps.js';

export function vehicleTripsRoute(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    await compressResponses(app);
    app.post('/vehicle-trips', {
      config: { swaggerTransform: documentedAs({ body: Type.Ref('VehicleTripsRequest'), response: { 200: Type.Ref('VehicleTripsResponse') } }) },
      schema: {
        operationId: 'queryVehicleTrips',
        summary: 'Read trip summaries',
        description: 'Finished trips overlapping the period (start_date_time <= end_date and end_date_time >= start_date), grouped by VIN, ascending. No dates: the last 7 days. See docs/trips.md.',
        tags: ['trips'],
        security: bearerSecurity,
        body: VehicleTripsRequest,
        response: {
          200: VehicleTripsResponse,
          ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'tooManyTripVins', 'invalidDate', 'startAfterEnd', 'unknownDatapoint', 'vinNotFound'),
        },
      },
    }, async (request) => queryVehicleTrips(deps.store.db, principalOf(request).companyId, request.body, deps.clock.now()));
  };
}
