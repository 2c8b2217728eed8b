import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { OpenAPIV3_1 } from 'openapi-types';
import swaggerUi from '@fastify/swagger-ui';
import { webhooksSection } from '@telematics/contract';
import { compressResponses } from './compression.js';

/** The OpenAPI 3.1 document is generated from the route schemas; /docs renders it. */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vehicle Telematics Service',
        version: '0.1.0',
        description: 'Tokens, vehicle registry, vehicle data, trips and remote commands. Times are rendered at -03:00. Every error body is `{"detail": "…"}`, with the exact text of the error.',
      },
      // What the service POSTs to webhook endpoints, one schema per event type (D12). The
      // contract builds plain objects (it depends on TypeBox alone), hence the cast.
      webhooks: webhooksSection() as Record<string, OpenAPIV3_1.PathItemObject>,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          ingestKey: { type: 'http', scheme: 'bearer', description: 'The ingest key of the OEM named in the path' },
        },
      },
      tags: [
        { name: 'auth', description: 'Access tokens' },
        { name: 'vehicles', description: 'Vehicle registry' },
        { name: 'vehicle data', description: 'Recorded telemetry' },
        { name: 'trips', description: 'Trip summaries computed from telemetry' },
        { name: 'commands', description: 'Remote commands through the automaker' },
        { name: 'events', description: 'What happened, for applications to be told: a feed with a cursor (see docs/events.md)' },
        { name: 'webhooks', description: 'Events pushed to the application\'s receivers, signed (Standard Webhooks)' },
        { name: 'ingest', description: 'Automakers push telemetry' },
        { name: 'operations', description: 'Health and metrics' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  // The document is tens of KiB: compressed, in a scope of its own so /docs is left as it is.
  await app.register(async (document) => {
    await compressResponses(document);
    document.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  });
}
