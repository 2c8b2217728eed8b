/**
 * /operator/api/*: what `telematics admin` does to the registry, for the operator signed in at
 * /operator/session: plans, automakers, companies, vehicles and their trackers, applications and
 * their credentials. Every change goes through the same use cases as the command line (and so
 * the fleet file's checks, `applyFleet` and the audit trail, naming the operator's e-mail). No
 * answer is cached, and secrets are answered once. Not in the OpenAPI document: docs/operator-console.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ConsoleSessionSettings } from '../../auth/console-sessions.js';
import { errors, ServiceError } from '../../domain/errors.js';
import type { AppDeps } from '../app-deps.js';
import { applicationRoutes } from './application-routes.js';
import { companyRoutes } from './company-routes.js';
import { oemRoutes } from './oem-routes.js';
import { operatorSessionHook } from './operator-session-hook.js';
import { planRoutes } from './plan-routes.js';
import { vehicleRoutes } from './vehicle-routes.js';

export const OPERATOR_API_PREFIX = '/operator/api';

export function operatorApi(deps: AppDeps, sessions: ConsoleSessionSettings): FastifyPluginAsync {
  return async (api) => {
    api.addHook('onRequest', operatorSessionHook(deps, sessions));
    api.addHook('onSend', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
    });
    await api.register(planRoutes(deps));
    await api.register(oemRoutes(deps));
    await api.register(companyRoutes(deps));
    await api.register(vehicleRoutes(deps));
    await api.register(applicationRoutes(deps));
    api.all('/*', async () => { throw new ServiceError(errors.notFound); });
  };
}
