import { auditedChange } from '../audited-change.js';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EVENT_TYPES } from '@telematics/contract';
import { findWebhookEndpoint } from '../../store/webhooks/endpoints.js';
import { createEndpoint, listEndpoints } from '../../webhooks/endpoints/manage-endpoints.js';
import { verifyEndpoint } from '../../webhooks/endpoints/verify-endpoint.js';
import type { WebhookDeps } from '../../webhooks/webhook-deps.js';
import { AUTH_ERRORS, bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS } from '../schemas.js';
import { AnyObject, Endpoint, ownerOf } from './webhook-schemas.js';

/**
 * POST and GET /webhook-endpoints. A new endpoint is sent the verification challenge at once,
 * without holding the answer to its creation.
 */
export function endpointCollectionRoutes(deps: WebhookDeps, logger: FastifyBaseLogger): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const verifySoon = (id: string) => {
      void findWebhookEndpoint(deps.store.db, id).then((row) => row && verifyEndpoint(deps, row)).catch((error: unknown) => logger.error({ err: error, endpoint: id }, 'webhook verification could not run'));
    };

    app.post('/webhook-endpoints', {
      config: {
        swaggerTransform: documentedAs({
          body: Type.Object({
            url: Type.String({ format: 'uri', maxLength: 2048, description: 'https (http only on networks the operator allowed)' }),
            event_types: Type.Array(Type.Enum([...EVENT_TYPES, '*']), { minItems: 1, description: 'The event types to receive, or ["*"] for all' }),
          }),
        }),
      },
      schema: {
        operationId: 'createWebhookEndpoint', summary: 'Register a webhook endpoint',
        description: 'Answers the signing secret (`whsec_…`), shown only here. The endpoint receives nothing until it has answered the signed `webhook.verification` event with 2xx and `{"challenge": "<data.challenge>"}`; the challenge is sent at once. See docs/events.md.',
        tags: ['webhooks'], security: bearerSecurity,
        body: AnyObject('url (https), event_types (a list of event types, or ["*"])'),
        response: {
          201: Type.Object({ ...Endpoint.properties, secret: Type.String({ description: 'whsec_…: verify signatures with it' }) }),
          ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'webhookUrlInvalid', 'webhookUrlRefused', 'webhookEventTypesInvalid', 'tooManyWebhookEndpoints'),
        },
      },
    }, async (request, reply) => {
      const created = await auditedChange(deps.store, request, 'webhook_endpoint.created', (e) => e.id, () => createEndpoint(deps, ownerOf(request), request.body));
      verifySoon(created.id);
      return reply.code(201).send(created);
    });

    app.get('/webhook-endpoints', {
      schema: { operationId: 'listWebhookEndpoints', summary: "List the application's webhook endpoints", description: 'Every endpoint the token\'s application registered, with its status (pending_verification, enabled, disabled) and, when disabled, why.', tags: ['webhooks'], security: bearerSecurity, response: { 200: Type.Array(Endpoint), ...errorResponses(AUTH_ERRORS) } },
    }, async (request) => listEndpoints(deps, ownerOf(request)));
  };
}
