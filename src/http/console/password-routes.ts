/**
 * /console/password: a set-password link taken up (an invitation or a reset). `POST
 * /console/password/check` says whose link it is before the page shows the form; `POST
 * /console/password` sets the password. The token travels in the body, never in a URL a proxy
 * logs. Limited per address as sign-in is; an unknown, used or expired link is 410.
 */
import type { FastifyPluginAsync } from 'fastify';
import { addressKey } from '../../domain/client-address.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { describePasswordLink, takeUpPasswordLink } from '../../users/password-links.js';
import type { UserDeps } from '../../users/user-deps.js';
import type { RequestLimits } from '../rate-limits.js';
import { isCrossSite } from './cross-site-check.js';

const BODY_LIMIT = 8 * 1024;

export function passwordRoutes(deps: UserDeps, limits: RequestLimits): FastifyPluginAsync {
  return async (app) => {
    const guarded = {
      bodyLimit: BODY_LIMIT,
      onRequest: async (request: import('fastify').FastifyRequest) => {
        await limits.tokenPerAddress.take(addressKey(request.ip), deps.clock.now());
        if (isCrossSite(request)) throw new ServiceError(errors.consoleCrossSite);
      },
    };
    const bodyOf = (body: unknown) => (body ?? {}) as Record<string, unknown>;

    app.post('/console/password/check', guarded, async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return describePasswordLink(deps, bodyOf(request.body).token);
    });

    app.post('/console/password', guarded, async (request, reply) => {
      const body = bodyOf(request.body);
      const { email } = await takeUpPasswordLink(deps, body.token, body.password);
      request.log.info('password set through a link');
      reply.header('cache-control', 'no-store');
      return { email };
    });
  };
}
