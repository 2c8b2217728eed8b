import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { TokenRequest, TokenResponse } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { exchangeClientCredentials } from '../auth/exchange-client-credentials.js';
import { acceptsJson } from './accept-header.js';
import { addressKey } from '../domain/client-address.js';
import { errorResponses, noSecurity } from './schemas.js';
import type { AppDeps } from './app-deps.js';
import type { RequestLimits } from './rate-limits.js';

const FORM = 'application/x-www-form-urlencoded';
/** Four short fields; anything larger is not a token request. */
const TOKEN_BODY_LIMIT = 8 * 1024;

const nonEmpty = (...values: (string | undefined)[]) => values.find((v) => v !== undefined && v !== '');

export function tokenRoute(deps: AppDeps, limits: RequestLimits): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    // Only form bodies here: this plugin's scope drops the JSON parser, so other types get 415.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: TOKEN_BODY_LIMIT }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    app.post('/token', {
      config: { contentType: FORM },
      schema: {
        operationId: 'createToken',
        summary: 'Exchange client credentials for an access token',
        description: 'A form-encoded body with `client_id` and `client_secret` (or `username` and `password`), `Accept` allowing JSON. '
          + 'Answers a JWT for the application and its company, and its lifetime in seconds. Limited per client address.',
        tags: ['auth'],
        security: noSecurity,
        consumes: [FORM],
        body: TokenRequest,
        response: {
          200: TokenResponse,
          ...errorResponses('tokenFieldsMissing', 'invalidRequest', 'invalidClientCredentials', 'notAcceptable', 'bodyTooLarge', 'unsupportedMediaType', 'rateLimited'),
        },
      },
      onRequest: async (request) => {
        // Before the body is even read: an address guessing secrets costs as little as possible.
        await limits.tokenPerAddress.take(addressKey(request.ip), deps.clock.now());
        if (!acceptsJson(request.headers.accept)) throw new ServiceError(errors.notAcceptable);
      },
    }, async (request, reply) => {
      const body = request.body ?? {};
      const clientId = nonEmpty(body.client_id, body.username);
      const clientSecret = nonEmpty(body.client_secret, body.password);
      if (clientId === undefined || clientSecret === undefined) throw new ServiceError(errors.tokenFieldsMissing);
      let issued;
      try {
        issued = await exchangeClientCredentials(deps.store.db, deps.keyring, deps.tokenSettings, clientId, clientSecret, deps.clock.now());
      } catch (error) {
        // Only failures count against a client id, and only after the secret was checked: anyone
        // who knows a client id could otherwise lock its application out by failing on purpose.
        // A correct secret always gets its token; the per-address limit is what stops guessing.
        if (error instanceof ServiceError && error.entry === errors.invalidClientCredentials) await limits.tokenPerClient.take(clientId, deps.clock.now());
        throw error;
      }
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return issued;
    });
  };
}
