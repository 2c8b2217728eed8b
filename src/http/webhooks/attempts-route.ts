import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { attemptLog } from '../../webhooks/endpoints/attempt-log.js';
import type { WebhookDeps } from '../../webhooks/webhook-deps.js';
import { bearerSecurity, errorResponses } from '../schemas.js';
import { EndpointParams, ONE_ENDPOINT, ownerOf } from './webhook-schemas.js';

/** GET /webhook-endpoints/{id}/attempts. */
export function attemptsRoute(deps: WebhookDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/webhook-endpoints/:id/attempts', {
      schema: {
        operationId: 'listWebhookAttempts', summary: "The endpoint's attempt log, newest first",
        description: 'Each attempt: event, trigger (auto, test, verification), time, duration, status code or error class. Receivers\' bodies are never kept.',
        tags: ['webhooks'], security: bearerSecurity, params: EndpointParams, querystring: Type.Object({ limit: Type.Optional(Type.String({ description: '1 to 500, default 100' })) }),
        response: {
          200: Type.Array(Type.Object({
            event_id: Type.String(), event_type: Type.String(), trigger: Type.String(), attempted: Type.String(), duration_ms: Type.Integer(),
            status_code: Type.Union([Type.Integer(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]),
          })),
          ...errorResponses(ONE_ENDPOINT, 'eventLimitInvalid', 'invalidRequest'),
        },
      },
    }, async (request) => attemptLog(deps, ownerOf(request), request.params.id, request.query.limit));
  };
}
