import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { VehicleDataRequest, VehicleDataResponse } from '@telematics/contract';
import { planVehicleData } from '../telemetry/plan-vehicle-data.js';
import { streamVehicleData } from '../telemetry/stream-vehicle-data.js';
import { principalOf } from './authenticate-hook.js';
import { authErrors, bearerSecurity, errorResponse } from './schemas.js';
import { compressResponses } from './compression.js';
import type { AppDeps } from './app-deps.js';

export function vehicleDataRoute(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    await compressResponses(app);
    app.post('/vehicle-data', {
      schema: {
        summary: 'Read recorded vehicle data',
        description: 'Records of up to 20 VINs over at most 24 h within the last 7 days, ascending by date_time, holding only the requested datapoints. The body is streamed.',
        tags: ['vehicle data'],
        security: bearerSecurity,
        body: VehicleDataRequest,
        response: {
          200: VehicleDataResponse,
          400: errorResponse('Malformed body, too many VINs, a date error, or an unknown datapoint'),
          ...authErrors,
          404: errorResponse('VIN not found or unauthorized access., Unsupported datapoint for this vehicle., Datapoint not included in your package plan., or No data for the given date range: …'),
        },
      },
    }, async (request, reply) => {
      const plan = await planVehicleData(deps.store.db, principalOf(request).companyId, request.body, deps.clock.now());
      const body = Readable.from(streamVehicleData(deps.store.db, plan), { objectMode: false });
      body.on('error', (error) => request.log.error({ err: error }, 'vehicle data stream failed after the response began'));
      return reply.type('application/json; charset=utf-8').send(body);
    });
  };
}
