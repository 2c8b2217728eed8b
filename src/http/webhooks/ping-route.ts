import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, ServiceError } from '../../domain/errors.js';
import { ownEndpoint } from '../../webhooks/endpoints/endpoint-resource.js';
import { pingEndpoint } from '../../webhooks/endpoints/ping-endpoint.js';
import type { WebhookDeps } from '../../webhooks/webhook-deps.js';
import { bearerSecurity, errorResponses } from '../schemas.js';
import { EndpointParams, ONE_ENDPOINT, ownerOf } from './webhook-schemas.js';

/** POST /webhook-endpoints/{id}/test: a signed `webhook.ping`, spaced per endpoint (`spaced`). */
export function pingRoute(deps: WebhookDeps, spaced: (endpointId: string) => void): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/webhook-endpoints/:id/test', {
      schema: {
        operationId: 'testWebhookEndpoint', summary: 'Send a signed webhook.ping now',
        description: "Answers the receiver's status code (or the error class) and the time it took; never its body.",
        tags: ['webhooks'], security: bearerSecurity, params: EndpointParams,
        response: {
          200: Type.Object({ event_id: Type.String(), status_code: Type.Union([Type.Integer(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]), duration_ms: Type.Integer() }),
          ...errorResponses(ONE_ENDPOINT, 'webhookEndpointNotEnabled', 'rateLimited'),
        },
      },
    }, async (request) => {
      const row = await ownEndpoint(deps, ownerOf(request), request.params.id);
      if (row.status !== 'enabled') throw new ServiceError(errors.webhookEndpointNotEnabled);
      spaced(row.id);
      return pingEndpoint(deps, ownerOf(request), row.id);
    });
  };
}
