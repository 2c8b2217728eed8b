import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { queryVehicleTrips, TRIP_FIELDS } from '../trips/query-trips.js';
import { principalOf } from './authenticate-hook.js';
import { authErrors, bearerSecurity, errorResponse } from './schemas.js';
import type { AppDeps } from './app-deps.js';

const MAX_LISTED = 1000;

export function vehicleTripsRoute(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/vehicle-trips', {
      schema: {
        summary: 'Read trip summaries',
        description: 'Finished trips overlapping the period (start_date_time <= end_date and end_date_time >= start_date), grouped by VIN, ascending. No dates: the last 7 days. See docs/trips.md.',
        tags: ['trips'],
        security: bearerSecurity,
        body: Type.Object({
          // No maxItems: any count over 100 gets the same text; the body limit bounds the list.
          vins: Type.Array(Type.String(), { minItems: 1, description: 'Up to 100 VINs (duplicates count once)' }),
          datapoints: Type.Array(Type.String(), { minItems: 1, maxItems: MAX_LISTED, description: `Any of: ${Object.keys(TRIP_FIELDS).join(', ')}` }),
          start_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD (T00:00:00) or YYYY-MM-DDTHH:MM:SS, at -03:00 unless an offset is given' })),
          end_date: Type.Optional(Type.String({ description: 'YYYY-MM-DD (T23:59:59) or YYYY-MM-DDTHH:MM:SS, at -03:00 unless an offset is given' })),
        }),
        response: {
          200: {
            description: 'An object keyed by VIN; each value is the array of that VIN\'s trips (empty when none)',
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'object', additionalProperties: true } },
          },
          400: errorResponse('Malformed body, too many VINs, a date error, or an unknown datapoint'),
          ...authErrors,
          404: errorResponse('VIN not found or unauthorized access.'),
        },
      },
    }, async (request) => queryVehicleTrips(deps.store.db, principalOf(request).companyId, request.body, deps.clock.now()));
  };
}
