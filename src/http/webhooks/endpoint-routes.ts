import { auditedChange } from '../audited-change.js';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { endpointResource, ownEndpoint } from '../../webhooks/endpoints/endpoint-resource.js';
import { removeEndpoint } from '../../webhooks/endpoints/manage-endpoints.js';
import type { WebhookDeps } from '../../webhooks/webhook-deps.js';
import { bearerSecurity, errorResponses } from '../schemas.js';
import { Endpoint, EndpointParams, ONE_ENDPOINT, ownerOf } from './webhook-schemas.js';

/** GET and DELETE /webhook-endpoints/{id}. */
export function endpointRoutes(deps: WebhookDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/webhook-endpoints/:id', {
      schema: { operationId: 'getWebhookEndpoint', summary: 'Read a webhook endpoint', description: 'One of the application\'s endpoints, with its status; its secret is never shown again. Another application\'s reads as 404.', tags: ['webhooks'], security: bearerSecurity, params: EndpointParams, response: { 200: Endpoint, ...errorResponses(ONE_ENDPOINT) } },
    }, async (request) => endpointResource(await ownEndpoint(deps, ownerOf(request), request.params.id)));

    app.delete('/webhook-endpoints/:id', {
      schema: { operationId: 'deleteWebhookEndpoint', summary: 'Remove a webhook endpoint', description: 'What it had not received yet is not sent.', tags: ['webhooks'], security: bearerSecurity, params: EndpointParams, response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(ONE_ENDPOINT) } },
    }, async (request, reply) => {
      await auditedChange(deps.store, request, 'webhook_endpoint.deleted', () => request.params.id, () => removeEndpoint(deps, ownerOf(request), request.params.id));
      return reply.code(204).send(null);
    });
  };
}
