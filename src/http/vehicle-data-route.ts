import { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { OnUnreadableRow } from '../domain/stored-record.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { FleetLatest, VehicleDataRequest, VehicleDataResponse } from '@telematics/contract';
import { readFleetLatest } from '../telemetry/read-fleet-latest.js';
import { planVehicleData } from '../telemetry/plan-vehicle-data.js';
import { streamVehicleData } from '../telemetry/stream-vehicle-data.js';
import { principalOf } from './authenticate-hook.js';
import { AUTH_ERRORS, bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS } from './schemas.js';
import { Type } from 'typebox';
import { compressResponses } from './compression.js';
import type { AppDeps } from './app-deps.js';

/** POST /vehicle-data and GET /vehicle-data/latest; registered behind the authentication hook. */
export function vehicleDataRoute(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    await compressResponses(app);
    /** A stored row a read skips (domain/stored-record.ts): logged without its values, counted. */
    const unreadable = (log: FastifyBaseLogger): OnUnreadableRow => (vin, ts, column) => {
      deps.metrics.unreadableTelemetry.inc({ column });
      log.error({ vin, ts: typeof ts === 'number' || typeof ts === 'string' ? ts : undefined, column }, 'stored telemetry row cannot be read: left out of the answer');
    };
    app.post('/vehicle-data', {
      config: { swaggerTransform: documentedAs({ body: Type.Ref('VehicleDataRequest'), response: { 200: Type.Ref('VehicleDataResponse') } }) },
      schema: {
        operationId: 'queryVehicleData',
        summary: 'Read recorded vehicle data',
        description: 'Records of up to 20 VINs over at most 24 h within the last 7 days, ascending by date_time, holding only the requested datapoints. The body is streamed.',
        tags: ['vehicle data'],
        security: bearerSecurity,
        body: VehicleDataRequest,
        response: {
          200: VehicleDataResponse,
          ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'tooManyVins', 'invalidDate', 'dateInFuture', 'dateOutOfRange', 'startAfterEnd', 'spanTooLong',
            'unknownDatapoint', 'vinNotFound', 'unsupportedDatapoint', 'datapointNotInPlan', 'noData'),
        },
      },
    }, async (request, reply) => {
      const plan = await planVehicleData(deps.store.db, principalOf(request).companyId, request.body, deps.clock.now());
      const stopped = (vin: string, afterTs: number) => request.log.error({ vin, afterTs }, 'vehicle data paging made no progress past unreadable rows: the rest of this VIN\'s window left out');
      const body = Readable.from(streamVehicleData(deps.store.db, plan, unreadable(request.log), stopped), { objectMode: false });
      body.on('error', (error) => request.log.error({ err: error }, 'vehicle data stream failed after the response began'));
      return reply.type('application/json; charset=utf-8').send(body);
    });

    app.get('/vehicle-data/latest', {
      schema: {
        operationId: 'getFleetLatest',
        summary: 'Read the newest record of every vehicle',
        description: 'Every vehicle of the token\'s company, ordered by VIN, with the state its newest record implies and that record, holding every datapoint '
          + 'the company may read of the vehicle. An addition to the interface (docs/vehicle-data.md).',
        tags: ['vehicle data'],
        security: bearerSecurity,
        response: { 200: FleetLatest, ...errorResponses(AUTH_ERRORS) },
      },
    }, async (request) => readFleetLatest(deps.store, principalOf(request).companyId, deps.clock.now(), deps.vehicleStates, unreadable(request.log)));
  };
}
