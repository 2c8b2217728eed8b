/**
 * Scoped credentials: every route behind the bearer hook (and the console's session
 * hook) requires exactly one scope, looked up once when it is registered (`ROUTE_SCOPES`,
 * domain/scopes.ts; a route without one fails to register), and checked on every request after
 * authentication against the principal's bitmask: one AND, nothing allocated. A missing scope is
 * 403 `Insufficient scope: <scope> is required.` with the RFC 6750 challenge.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { errors, ServiceError } from '../domain/errors.js';
import { hasScope, SCOPES, scopeOfRoute, type Scope } from '../domain/scopes.js';
import { principalOf } from './authenticate-hook.js';
import { sendError } from './error-handler.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope the route requires, set when it registers behind `declareRouteScopes`. */
    requiredScope?: Scope;
    /** A route behind authentication that needs no scope (the console's not-found catch-all). */
    noScope?: boolean;
  }
}

/**
 * Gives each route registered in `scope` from now on its required scope, by method and path
 * without `prefix`. Must be added before the routes are registered.
 */
export function declareRouteScopes(scope: FastifyInstance, prefix = ''): void {
  scope.addHook('onRoute', (route) => {
    if (route.config?.noScope === true) return;
    const path = route.url.startsWith(prefix) ? route.url.slice(prefix.length) : route.url;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const required = new Set(methods.map((m) => scopeOfRoute(m, path)));
    if (required.size !== 1) throw new Error(`route ${path} needs one scope for all its methods`);
    route.config = { ...route.config, requiredScope: [...required][0]! };
  });
}

/** The answer for each missing scope, made once. */
const REFUSALS: ReadonlyMap<Scope, ServiceError> = new Map(SCOPES.map((s) => [s, new ServiceError(errors.insufficientScope, { scope: s })]));

/** An onRequest hook after the one that sets the principal. */
export const requireRouteScope: onRequestHookHandler = function requireScope(request, reply, done) {
  const required = request.routeOptions.config.requiredScope;
  if (required === undefined || hasScope(principalOf(request).scopes, required)) {
    done();
    return;
  }
  request.log.info({ scope: required }, 'token lacks the route\'s scope');
  reply.header('www-authenticate', `Bearer error="insufficient_scope", scope="${required}"`);
  sendError(reply, REFUSALS.get(required)!);
};
