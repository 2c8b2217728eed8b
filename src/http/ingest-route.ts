import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authenticateOem } from '../ingest/authenticate-oem.js';
import { ingestRecords } from '../ingest/ingest-records.js';
import { errorResponse } from './schemas.js';
import type { AppDeps } from './app-deps.js';

/** A batch of 5,000 records of every datapoint is about 3 MB of JSON. */
export const MAX_INGEST_RECORDS = 5000;
export const INGEST_BODY_LIMIT = 8 * 1024 * 1024;

const IngestResponse = Type.Object({
  accepted: Type.Integer({ description: 'Records stored (or already stored: the same VIN and instant count once)' }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), reason: Type.String() }), { description: 'Records refused, by position in the batch' }),
});

/** POST /ingest/{oem}: automakers push telemetry (OPERATIONS.md "Ingest"). */
export function ingestRoute(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/ingest/:oem', {
      bodyLimit: INGEST_BODY_LIMIT,
      schema: {
        summary: 'Push telemetry records (automakers)',
        description: `Authorization: Bearer <ingest key of the OEM>. At most ${MAX_INGEST_RECORDS} records per batch; see docs/ingest.md.`,
        tags: ['ingest'],
        security: [{ ingestKey: [] }],
        params: Type.Object({ oem: Type.String({ description: 'OEM name as registered' }) }),
        body: Type.Object({
          records: Type.Array(Type.Unknown(), { maxItems: MAX_INGEST_RECORDS, description: 'Records: vin, date_time (ISO 8601 with offset), datapoints' }),
        }),
        response: { 200: IngestResponse, 401: errorResponse('Invalid ingest key.') },
      },
      onRequest: async (request) => {
        await authenticateOem(deps.store.db, deps.keyring, (request.params as { oem: string }).oem, request.headers.authorization);
      },
    }, async (request) => ingestRecords(deps.store, request.params.oem, request.body.records, deps.clock.now(), { retentionMs: deps.telemetryRetentionMs, tripLatenessMs: deps.tripLatenessMs }));
  };
}
