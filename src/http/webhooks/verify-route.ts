import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, ServiceError } from '../../domain/errors.js';
import { ownEndpoint } from '../../webhooks/endpoints/endpoint-resource.js';
import { verifyEndpoint } from '../../webhooks/endpoints/verify-endpoint.js';
import type { WebhookDeps } from '../../webhooks/webhook-deps.js';
import { bearerSecurity, errorResponses } from '../schemas.js';
import { Endpoint, EndpointParams, ONE_ENDPOINT, ownerOf } from './webhook-schemas.js';

/** POST /webhook-endpoints/{id}/verify: the challenge again, spaced per endpoint (`spaced`). */
export function verifyRoute(deps: WebhookDeps, spaced: (endpointId: string) => void): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/webhook-endpoints/:id/verify', {
      schema: {
        operationId: 'verifyWebhookEndpoint', summary: 'Send the verification challenge again',
        description: 'An endpoint that answers it is enabled (also one that was disabled); the answer says how the receiver answered.',
        tags: ['webhooks'], security: bearerSecurity, params: EndpointParams,
        response: {
          200: Type.Object({ ...Endpoint.properties, verification: Type.Object({ verified: Type.Boolean(), status_code: Type.Union([Type.Integer(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]) }) }),
          ...errorResponses(ONE_ENDPOINT, 'webhookEndpointDisabledByOperator', 'rateLimited'),
        },
      },
    }, async (request) => {
      const row = await ownEndpoint(deps, ownerOf(request), request.params.id);
      // Refused before counting as a send: nothing goes to the URL.
      if (row.disabled_reason === 'operator') throw new ServiceError(errors.webhookEndpointDisabledByOperator);
      spaced(row.id);
      return verifyEndpoint(deps, row);
    });
  };
}
