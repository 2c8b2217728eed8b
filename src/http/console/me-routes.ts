/**
 * /console/api/me: the signed-in person's own account, whatever the role: who they are, and
 * their second factor (start enrolment: the secret once, as an `otpauth://` URI; confirm it with
 * a first code: ten recovery codes once; remove it with a current code).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { RequestLimits } from '../rate-limits.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { beginTotpEnrolment, confirmTotpEnrolment, removeTotp } from '../../users/second-factor.js';
import type { UserDeps } from '../../users/user-deps.js';
import { findUserById } from '../../store/users-queries.js';
import { userResource } from '../../users/user-resource.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { personOf } from './person-of-request.js';

const CodeBody = Type.Object({ code: Type.Optional(Type.Unknown()) });
const OWN = { config: { noScope: true } } as const;

export function meRoutes(deps: UserDeps, limits: RequestLimits): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    // A code is six digits: each try of one counts, per person, as a sign-in does (a stolen session
    // cannot guess its way to removing, or confirming, a second factor).
    const codeTry = (request: FastifyRequest) => limits.tokenPerClient.take(`totp:${personOf(request).id}`, deps.clock.now());

    app.get('/me', OWN, async (request) => {
      const user = await findUserById(deps.store.db, personOf(request).id);
      if (!user) throw new ServiceError(errors.userNotFound);
      return userResource(user);
    });

    app.post('/me/totp', OWN, async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return beginTotpEnrolment(deps, personOf(request).id);
    });

    app.post('/me/totp/confirm', { ...OWN, schema: { body: CodeBody } }, async (request, reply) => {
      await codeTry(request);
      reply.header('cache-control', 'no-store');
      return confirmTotpEnrolment(deps, personOf(request).id, request.body.code);
    });

    app.delete('/me/totp', { ...OWN, schema: { body: Type.Optional(CodeBody) } }, async (request, reply) => {
      await codeTry(request);
      await removeTotp(deps, personOf(request).id, request.body?.code);
      return reply.code(204).send();
    });
  };
}
