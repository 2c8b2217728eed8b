import type { FastifyInstance } from 'fastify';
import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import type { OpenAPIV3_1 } from 'openapi-types';
import swaggerUi from '@fastify/swagger-ui';
import { errors, TYPED_SHAPES, webhooksSection, type ErrorName } from '@telematics/contract';

import { packageVersion } from '../package-version.js';
import { compressResponses } from './compression.js';
import { DOCS_PAGE, SERVICE_TITLE } from './docs-page.js';
import { REQUEST_ERRORS } from './schemas.js';

/** Errors of the connection or of an unknown path, answered before any route is chosen. */
export const CONNECTION_ERRORS: readonly ErrorName[] = [...REQUEST_ERRORS, 'notFound'];

/** The OpenAPI 3.1 document is generated from the route schemas; /docs renders it. */
/** Operations whose body may be left out: @fastify/swagger marks every body required. */
const OPTIONAL_BODIES: ReadonlySet<string> = new Set(['rotateWebhookEndpointSecret']);

const markOptionalBodies: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject;
  const { openapiObject } = document;
  for (const item of Object.values(openapiObject.paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      const op = operation as OpenAPIV3_1.OperationObject;
      if (typeof op === 'object' && op.operationId !== undefined && OPTIONAL_BODIES.has(op.operationId) && op.requestBody !== undefined) {
        (op.requestBody as OpenAPIV3_1.RequestBodyObject).required = false;
      }
    }
  }
  return openapiObject;
};

const CONSOLE_ERRORS = [
  'consoleCrossSite', 'consoleAlertsLimitInvalid', 'userSignInFieldsMissing', 'invalidUserCredentials', 'secondFactorRequired',
  'invalidSecondFactor', 'userInvalid', 'userNotFound', 'userExists', 'roleNotAllowed', 'lastOwner', 'passwordInvalid', 'passwordLinkGone', 'totpNotStarted',
  'totpAlreadyEnrolled', 'shareLinkGone', 'registryEntryInvalid', 'registryEntryNotFound', 'registryEntryExists',
] as const;

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  // The shapes routes are documented with (schemas.ts documentedAs), as named components.
  for (const shape of TYPED_SHAPES) app.addSchema(shape);
  await app.register(swagger, {
    // Components are named by their $id (ErrorBody, Vehicle, …), not def-0, def-1.
    transformObject: markOptionalBodies,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json['$id'] === 'string' ? json['$id'] : `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: SERVICE_TITLE,
        version: packageVersion(),
        description: 'Tokens, vehicle registry, vehicle data, trips and remote commands. Times are rendered at -03:00. Every error body is `{"detail": "…"}`, with the exact text of the error '
          + '(each operation lists its own with their stable codes). Before any route, a request may also be answered:\n'
          + CONNECTION_ERRORS.map((name) => `- ${errors[name].status} \`${errors[name].code}\`: \`${errors[name].text}\``).join('\n')
          + '\n\nThe web console\'s own routes (`/console/*`, docs/console.md) are not part of this interface and not listed here; besides the errors above they answer:\n'
          + CONSOLE_ERRORS.map((name) => `- ${errors[name].status} \`${errors[name].code}\`: \`${errors[name].text}\``).join('\n'),
        license: { name: 'MIT', identifier: 'MIT' },
        // Each deployment serves this document, and whoever runs it is who its clients ask; the
        // project names no address of its own (SECURITY.md).
        contact: { name: 'The operator of this service' },
      },
      // Relative: wherever this document is served from (each deployment has its own address).
      servers: [{ url: '/', description: 'The service that serves this document' }],
      // What the service POSTs to webhook endpoints, one schema per event type (D12). The
      // contract builds plain objects (it depends on TypeBox alone), hence the cast.
      webhooks: webhooksSection() as Record<string, OpenAPIV3_1.PathItemObject>,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          ingestKey: { type: 'http', scheme: 'bearer', description: 'The ingest key of the OEM named in the path' },
          webhookSignature: {
            type: 'apiKey', in: 'header', name: 'webhook-signature',
            description: 'What the service sends: Standard Webhooks v1, `v1,<base64 HMAC-SHA256 of webhook-id.webhook-timestamp.body>` with the endpoint\'s secret (docs/events.md)',
          },
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
        { name: 'geofences', description: 'A company\'s areas and corridors (GeoJSON), which vehicles are watched entering and leaving (see docs/geofences.md)' },
        { name: 'alerts', description: 'Rules over the company\'s vehicles\' records that fire alert.* events (see docs/alerts.md)' },
        { name: 'audit', description: 'Who did what: an append-only trail chained by hashes (see docs/audit.md)' },
        { name: 'share links', description: 'One vehicle\'s live position for someone without an account, expiring and revocable (see docs/share-links.md)' },
        { name: 'ingest', description: 'Automakers push telemetry' },
        { name: 'operations', description: 'Health and metrics' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, ...DOCS_PAGE });
  // The document is tens of KiB: compressed, in a scope of its own so /docs is left as it is.
  await app.register(async (document) => {
    await compressResponses(document);
    document.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  });
}
