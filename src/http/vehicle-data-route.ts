import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { planVehicleData } from '../telemetry/plan-vehicle-data.js';
import { streamVehicleData } from '../telemetry/stream-vehicle-data.js';
import { principalOf } from './authenticate-hook.js';
import { authErrors, bearerSecurity, errorResponse } from './schemas.js';
import type { AppDeps } from './app-deps.js';

/** Bounds on list sizes, far above any valid request, so absurd bodies cost nothing to refuse. */
const MAX_LISTED = 1000;

const VehicleDataBody = Type.Object({
  // No maxItems: any count over 20 must get the interface's text; the body limit bounds the list.
  vins: Type.Array(Type.String(), { minItems: 1, description: 'Up to 20 VINs (duplicates count once)' }),
  datapoints: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_LISTED, description: 'Datapoint names; see docs/vehicle-data.md' }),
  start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (read at -03:00), or with an explicit offset' })),
  end_date: Type.Optional(Type.String({ description: 'Same formats; at most now, at most 24 h after start_date' })),
});

export function vehicleDataRoute(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/vehicle-data', {
      schema: {
        summary: 'Read recorded vehicle data',
        description: 'Records of up to 20 VINs over at most 24 h within the last 7 days, ascending by date_time, holding only the requested datapoints. The body is streamed.',
        tags: ['vehicle data'],
        security: bearerSecurity,
        body: VehicleDataBody,
        response: {
          200: {
            description: 'An object keyed by VIN; each value is the array of that VIN\'s records (empty when it has none in the window)',
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'object', additionalProperties: true } },
          },
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
