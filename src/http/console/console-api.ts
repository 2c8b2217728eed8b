/**
 * /console/api/*: the interface's own routes (vehicles, vehicle data, trips, commands, geofences, alert rules, share links) answered
 * on the console session instead of a bearer token, so the console reads exactly what an
 * application reads and every check, text and limit is the same code. Commands of a session that
 * proved the sign-secret at sign-in are signed here with the application's sealed sign-secret:
 * the page never keeps it. Not in the OpenAPI document: the public paths are. One route is the
 * console's own: its alert history, newest first (alerts-route.ts).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { signCommandFor } from '../../commands/sign-command.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { OpenedSignSecrets } from '../../registry/application-secrets.js';
import { alertRuleRoutes } from '../alert-rule-routes.js';
import { shareLinkRoutes } from '../share-link-routes.js';
import type { AppDeps } from '../app-deps.js';
import { principalOf } from '../authenticate-hook.js';
import { commandRoutes } from '../command-routes.js';
import { geofenceRoutes } from '../geofence-routes.js';
import type { RequestLimits } from '../rate-limits.js';
import { vehicleDataRoute } from '../vehicle-data-route.js';
import { vehicleRoutes } from '../vehicle-routes.js';
import { vehicleTripsRoute } from '../vehicle-trips-route.js';
import { alertsRoute } from './alerts-route.js';
import { auditRoutes } from '../audit-routes.js';
import { usersRoutes } from './users-routes.js';
import { meRoutes } from './me-routes.js';
import { userDepsOf } from './console-settings.js';
import type { ConsoleSettings } from './console-settings.js';
import { sessionHook, sessionMayCommand } from './session-hook.js';
import { declareRouteScopes } from '../scope-hook.js';

export const CONSOLE_API_PREFIX = '/console/api';
const COMMAND_ROUTE = `${CONSOLE_API_PREFIX}/vehicle-command`;

export function consoleApi(deps: AppDeps, settings: ConsoleSettings, limits: RequestLimits): FastifyPluginAsync {
  // Every console request checks its session's sign proof, and every command is signed here.
  const signSecrets = new OpenedSignSecrets(deps.keyring);
  return async (api) => {
    api.addHook('onRequest', sessionHook(deps.store, signSecrets, deps.clock, settings.sessions));
    // The session's principal has its application's scopes: the same routes need the same ones.
    declareRouteScopes(api, CONSOLE_API_PREFIX);
    api.addHook('onSend', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
    });
    api.addHook('preValidation', async (request: FastifyRequest) => {
      if (request.method !== 'POST' || request.routeOptions.url !== COMMAND_ROUTE) return;
      // Whatever the page sent is never the signature.
      delete request.headers['x-signature'];
      const body = request.body as Record<string, unknown> | null | undefined;
      if (typeof body?.vin !== 'string' || typeof body.command !== 'string') return;
      // Only a session that proved the sign-secret gets its commands signed; another one's command
      // meets the interface's own refusal (`X-Signature invalid.`), as a token without the secret does.
      const signature = sessionMayCommand(request) ? signCommandFor(principalOf(request), signSecrets, body.vin, body.command) : undefined;
      if (signature !== undefined) request.headers['x-signature'] = signature;
    });
    await api.register(vehicleRoutes(deps));
    await api.register(vehicleDataRoute(deps));
    await api.register(vehicleTripsRoute(deps));
    await api.register(commandRoutes(deps, deps.clock, limits));
    await api.register(geofenceRoutes({ store: deps.store, clock: deps.clock, settings: deps.geofences }));
    await api.register(alertRuleRoutes(deps));
    await api.register(shareLinkRoutes(deps));
    await api.register(alertsRoute(deps));
    await api.register(auditRoutes(deps));
    await api.register(usersRoutes(userDepsOf(deps, settings)));
    await api.register(meRoutes(userDepsOf(deps, settings), limits));
    api.all('/*', { config: { noScope: true } }, async () => { throw new ServiceError(errors.notFound); });
  };
}
