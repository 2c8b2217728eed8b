/**
 * /operator/session: an operator signs in (POST: e-mail and password), who is signed in (GET,
 * 204 when nobody), sign out (DELETE). Limited as a company person's sign-in is: per address
 * before the body is read, then per e-mail from that address before the hash. The answer carries
 * the names the registry's forms offer (connectors, trackers, datapoints, commands, scopes), so
 * the page and the service never disagree on them.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { COMMAND_NAMES, DATAPOINT_NAMES } from '@telematics/contract';
import type { ConsoleSessionSettings } from '../../auth/console-sessions.js';
import { addressKey } from '../../domain/client-address.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { SCOPES } from '../../domain/scopes.js';
import { formatIsoLocal } from '../../domain/time.js';
import { DEVICE_PROTOCOL_RULES, DEVICE_PROTOCOLS } from '../../domain/trackers.js';
import { CONNECTOR_KINDS, MAX_TOKEN_LIFETIME, MIN_TOKEN_LIFETIME, OWNERSHIP_TYPES, SIM_PROFILES, VEHICLE_STATUSES } from '../../domain/vehicle.js';
import { closeOperatorSession, openOperatorSession, verifyOperatorSignIn, type OperatorSession } from '../../operators/operator-sessions.js';
import type { AppDeps } from '../app-deps.js';
import type { RequestLimits } from '../rate-limits.js';
import { isCrossSite } from '../console/cross-site-check.js';
import { operatorCookie, plainHttpWarning } from '../console/session-cookie.js';
import { currentOperatorSession } from './operator-session-hook.js';

const SIGN_IN_BODY_LIMIT = 8 * 1024;

const CHOICES = Object.freeze({
  connectors: CONNECTOR_KINDS, statuses: VEHICLE_STATUSES, ownership: OWNERSHIP_TYPES, sim_profiles: SIM_PROFILES,
  device_protocols: DEVICE_PROTOCOLS.map((p) => ({ name: p, id_rule: DEVICE_PROTOCOL_RULES[p].id.rule, id_example: DEVICE_PROTOCOL_RULES[p].id.example })),
  datapoints: DATAPOINT_NAMES, commands: COMMAND_NAMES, scopes: SCOPES,
  token_lifetime: { min: MIN_TOKEN_LIFETIME, max: MAX_TOKEN_LIFETIME },
});

const describe = (session: OperatorSession) => ({ operator: { email: session.operator.email }, expires: formatIsoLocal(session.expiresAt), choices: CHOICES });

export function operatorSessionRoutes(deps: AppDeps, sessions: ConsoleSessionSettings, passwordHashCost: number, limits: RequestLimits): FastifyPluginAsync {
  const refuseCrossSite = async (request: FastifyRequest) => {
    if (isCrossSite(request)) throw new ServiceError(errors.consoleCrossSite);
  };
  const warnIfPlain = plainHttpWarning('operator console');
  return async (app) => {
    app.post('/operator/session', {
      bodyLimit: SIGN_IN_BODY_LIMIT,
      onRequest: async (request) => {
        await limits.tokenPerAddress.take(addressKey(request.ip), deps.clock.now());
        await refuseCrossSite(request);
      },
    }, async (request, reply) => {
      const { email, password } = (request.body ?? {}) as Record<string, unknown>;
      if (typeof email !== 'string' || typeof password !== 'string' || email === '' || password === '') throw new ServiceError(errors.userSignInFieldsMissing);
      await limits.tokenPerClient.take(`operator:${addressKey(request.ip)}:${email.toLowerCase().slice(0, 254)}`, deps.clock.now());
      const operator = await verifyOperatorSignIn(deps.store.db, passwordHashCost, email, password.slice(0, 1024), deps.clock.now());
      const previous = operatorCookie.idOf(request);
      if (previous !== undefined) await closeOperatorSession(deps.store.db, previous);
      const opened = await openOperatorSession(deps.store.db, operator, deps.clock.now(), sessions);
      warnIfPlain(request);
      operatorCookie.set(request, reply, opened.id, Math.floor(sessions.maxMs / 1000));
      request.log.info({ operator_id: operator.id }, 'operator sign-in');
      reply.header('cache-control', 'no-store');
      return describe(opened);
    });

    app.get('/operator/session', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const session = await currentOperatorSession(deps, sessions, request, reply);
      if (!session) return reply.code(204).send();
      return describe(session);
    });

    app.delete('/operator/session', { onRequest: refuseCrossSite }, async (request, reply) => {
      const id = operatorCookie.idOf(request);
      if (id !== undefined) await closeOperatorSession(deps.store.db, id);
      operatorCookie.clear(request, reply);
      return reply.code(204).send();
    });
  };
}
