import { auditedChange } from '../audited-change.js';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, ServiceError } from '../../domain/errors.js';
import { rotateSecret } from '../../webhooks/endpoints/rotate-secret.js';
import type { WebhookDeps } from '../../webhooks/webhook-deps.js';
import { bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS } from '../schemas.js';
import { EndpointParams, ONE_ENDPOINT, ownerOf } from './webhook-schemas.js';

/** POST /webhook-endpoints/{id}/rotate-secret. */
export function rotateSecretRoute(deps: WebhookDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/webhook-endpoints/:id/rotate-secret', {
      config: {
        swaggerTransform: documentedAs({
          body: Type.Optional(Type.Object({ previous_secret_expires_in: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800, default: 86_400 })) })),
        }),
      },
      schema: {
        operationId: 'rotateWebhookEndpointSecret', summary: "Rotate the endpoint's signing secret",
        description: 'Answers the new secret; the previous one also signs for `previous_secret_expires_in` seconds (default 86400, 0 for a leaked secret, at most 604800).',
        tags: ['webhooks'], security: bearerSecurity, params: EndpointParams,
        response: { 200: Type.Object({ id: Type.String(), secret: Type.String(), previous_secret_expires: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(ONE_ENDPOINT, JSON_BODY_ERRORS, 'webhookRotationInvalid') },
      },
    }, async (request) => {
      // The body is optional: none, or an object with previous_secret_expires_in.
      const body = request.body;
      if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) throw new ServiceError(errors.webhookRotationInvalid);
      return auditedChange(deps.store, request, 'webhook_endpoint.rotated', () => request.params.id, () => rotateSecret(deps, ownerOf(request), request.params.id, (body ?? undefined) as Readonly<Record<string, unknown>> | undefined));
    });
  };
}
