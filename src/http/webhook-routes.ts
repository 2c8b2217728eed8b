import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ACCEPTED_DATE_FORMATS, EVENT_TYPES, parseInputDate } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { attemptLog } from '../webhooks/endpoints/attempt-log.js';
import { endpointResource, ownEndpoint } from '../webhooks/endpoints/endpoint-resource.js';
import { createEndpoint, listEndpoints, removeEndpoint } from '../webhooks/endpoints/manage-endpoints.js';
import { pingEndpoint } from '../webhooks/endpoints/ping-endpoint.js';
import { recoverEndpoint } from '../webhooks/endpoints/recover-endpoint.js';
import { rotateSecret } from '../webhooks/endpoints/rotate-secret.js';
import { verifyEndpoint } from '../webhooks/endpoints/verify-endpoint.js';
import type { WebhookDeps } from '../webhooks/webhook-deps.js';
import { findWebhookEndpoint } from '../store/webhooks/endpoints.js';
import { principalOf } from './authenticate-hook.js';
import { AUTH_ERRORS, bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS, PATH_ERRORS } from './schemas.js';
import type { FastifyBaseLogger } from 'fastify';

const EndpointParams = Type.Object({ id: Type.String({ description: 'The endpoint id' }) });
const AnyObject = (description: string) => Type.Unsafe<Readonly<Record<string, unknown>>>({ type: 'object', description });
const Endpoint = Type.Object({
  id: Type.String(), url: Type.String(), event_types: Type.Array(Type.String()),
  status: Type.String({ description: 'pending_verification, enabled or disabled' }),
  disabled_reason: Type.Union([Type.String({ description: 'gone (the receiver answered 410), failing, operator' }), Type.Null()]),
  created: Type.String(),
});
/** What every route about one endpoint may answer. */
const ONE_ENDPOINT = [...AUTH_ERRORS, ...PATH_ERRORS, 'webhookEndpointNotFound'] as const;
const SEND_SPACING_MS = 5000;

/**
 * /webhook-endpoints: an application's receivers (docs/events.md "Webhooks"); registered behind
 * the authentication hook. A new endpoint is sent the verification challenge at once, without
 * holding the answer to its creation; POST …/verify sends it again.
 */
export function webhookRoutes(deps: WebhookDeps, logger: FastifyBaseLogger): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const owner = (request: Parameters<typeof principalOf>[0]) => {
      const { companyId, applicationId } = principalOf(request);
      return { companyId, applicationId };
    };
    const verifySoon = (id: string) => {
      void findWebhookEndpoint(deps.store.db, id).then((row) => row && verifyEndpoint(deps, row)).catch((error: unknown) => logger.error({ err: error, endpoint: id }, 'webhook verification could not run'));
    };
    // Each of these sends a request to the endpoint's URL: at most one per endpoint every few
    // seconds, so the service is nobody's request cannon.
    const lastSent = new Map<string, number>();
    const spaced = (id: string) => {
      const now = Date.now();
      const wait = (lastSent.get(id) ?? -Infinity) + SEND_SPACING_MS - now;
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new ServiceError(errors.rateLimited, { seconds: String(seconds) }, seconds);
      }
      if (lastSent.size >= 10_000) lastSent.clear();
      lastSent.set(id, now);
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
      const created = await createEndpoint(deps, owner(request), request.body);
      verifySoon(created.id);
      return reply.code(201).send(created);
    });

    app.get('/webhook-endpoints', {
      schema: { operationId: 'listWebhookEndpoints', summary: "List the application's webhook endpoints", tags: ['webhooks'], security: bearerSecurity, response: { 200: Type.Array(Endpoint), ...errorResponses(AUTH_ERRORS) } },
    }, async (request) => listEndpoints(deps, owner(request)));

    app.get('/webhook-endpoints/:id', {
      schema: { operationId: 'getWebhookEndpoint', summary: 'Read a webhook endpoint', tags: ['webhooks'], security: bearerSecurity, params: EndpointParams, response: { 200: Endpoint, ...errorResponses(ONE_ENDPOINT) } },
    }, async (request) => endpointResource(await ownEndpoint(deps, owner(request), request.params.id)));

    app.delete('/webhook-endpoints/:id', {
      schema: { operationId: 'deleteWebhookEndpoint', summary: 'Remove a webhook endpoint', description: 'What it had not received yet is not sent.', tags: ['webhooks'], security: bearerSecurity, params: EndpointParams, response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(ONE_ENDPOINT) } },
    }, async (request, reply) => {
      await removeEndpoint(deps, owner(request), request.params.id);
      return reply.code(204).send(null);
    });

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
      const row = await ownEndpoint(deps, owner(request), request.params.id);
      // Refused before counting as a send: nothing goes to the URL.
      if (row.disabled_reason === 'operator') throw new ServiceError(errors.webhookEndpointDisabledByOperator);
      spaced(row.id);
      return verifyEndpoint(deps, row);
    });

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
      return rotateSecret(deps, owner(request), request.params.id, (body ?? undefined) as Readonly<Record<string, unknown>> | undefined);
    });

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
      const row = await ownEndpoint(deps, owner(request), request.params.id);
      if (row.status !== 'enabled') throw new ServiceError(errors.webhookEndpointNotEnabled);
      spaced(row.id);
      return pingEndpoint(deps, owner(request), row.id);
    });

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
      return reply.code(202).send(await recoverEndpoint(deps, owner(request), request.params.id, since.epochMs));
    });

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
    }, async (request) => attemptLog(deps, owner(request), request.params.id, request.query.limit));
  };
}
