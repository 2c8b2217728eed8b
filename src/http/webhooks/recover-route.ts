import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ACCEPTED_DATE_FORMATS, parseInputDate } from '@telematics/contract';
import { errors, ServiceError } from '../../domain/errors.js';
import { recoverEndpoint } from '../../webhooks/endpoints/recover-endpoint.js';
import type { WebhookDeps } from '../../webhooks/webhook-deps.js';
import { bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS } from '../schemas.js';
import { AnyObject, EndpointParams, ONE_ENDPOINT, ownerOf } from './webhook-schemas.js';

/** POST /webhook-endpoints/{id}/recover: `since` within the event retention. */
export function recoverRoute(deps: WebhookDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/webhook-endpoints/:id/recover', {
      config: { swaggerTransform: documentedAs({ body: Type.Object({ since: Type.String({ description: ACCEPTED_DATE_FORMATS }) }) }) },
      schema: {
        operationId: 'recoverWebhookEndpoint', summary: 'Send again what the endpoint missed since an instant',
        description: 'Queues, oldest first, every event since `since` the endpoint may see and has not received (failed, or never sent while it was disabled).',
        tags: ['webhooks'], security: bearerSecurity, params: EndpointParams, body: AnyObject(`since: ${ACCEPTED_DATE_FORMATS}`),
        response: { 202: Type.Object({ queued: Type.Integer() }), ...errorResponses(ONE_ENDPOINT, JSON_BODY_ERRORS, 'webhookSinceInvalid', 'webhookEndpointNotEnabled') },
      },
    }, async (request, reply) => {
      const since = typeof request.body['since'] === 'string' ? parseInputDate(request.body['since']) : undefined;
      const now = deps.clock.now();
      if (!since || since.epochMs > now || since.epochMs < now - deps.settings.retentionMs) throw new ServiceError(errors.webhookSinceInvalid, { formats: ACCEPTED_DATE_FORMATS });
      return reply.code(202).send(await recoverEndpoint(deps, ownerOf(request), request.params.id, since.epochMs));
    });
  };
}
