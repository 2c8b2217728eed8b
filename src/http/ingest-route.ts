import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IngestParams, IngestRequest, IngestResponse, MAX_INGEST_RECORDS } from '@telematics/contract';
import { authenticateOem } from '../ingest/authenticate-oem.js';
import { ingestWireBatch } from '../ingest/wire-batch.js';
import { errorResponses, JSON_BODY_ERRORS, PATH_ERRORS } from './schemas.js';
import type { AppDeps } from './app-deps.js';
import type { IngestSummary } from './ingest-summary.js';

/** 5,000 records (MAX_INGEST_RECORDS) of every datapoint are about 3 MB of JSON. */
export const INGEST_BODY_LIMIT = 8 * 1024 * 1024;

/** POST /ingest/{oem}: automakers push telemetry (OPERATIONS.md "Ingest"). */
export function ingestRoute(deps: AppDeps, summary: IngestSummary): FastifyPluginAsync {
  const intake = { retentionMs: deps.telemetryRetentionMs, tripLatenessMs: deps.tripLatenessMs, queue: deps.ingestQueue };
  const authOptions = { queued: deps.ingestQueue !== undefined };
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/ingest/:oem', {
      bodyLimit: INGEST_BODY_LIMIT,
      config: { requestLog: 'summary' },
      schema: {
        operationId: 'ingestTelemetry',
        summary: 'Push telemetry records (automakers)',
        description: `\`Authorization: Bearer <ingest key of the OEM>\`. At most ${MAX_INGEST_RECORDS} records per batch; see docs/ingest.md.`,
        tags: ['ingest'],
        security: [{ ingestKey: [] }],
        params: IngestParams,
        body: IngestRequest,
        response: { 200: IngestResponse, ...errorResponses(JSON_BODY_ERRORS, PATH_ERRORS, 'invalidIngestKey') },
      },
      onRequest: async (request) => {
        await authenticateOem(deps.store, deps.keyring, (request.params as { oem: string }).oem, request.headers.authorization, authOptions);
      },
    }, async (request) => {
      const result = await ingestWireBatch(deps.store, request.params.oem, request.body.records, deps.clock.now(), intake);
      summary.add(request.params.oem, result.accepted, result.rejected.length);
      return result;
    });
  };
}
