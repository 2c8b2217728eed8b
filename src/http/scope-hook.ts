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

/** The answer for each missing scope, made once. */
const REFUSALS: ReadonlyMap<Scope, ServiceError> = new Map(SCOPES.map((s) => [s, new ServiceError(errors.insufficientScope, { scope: s })]));

/**
 * An onRequest hook requiring `scope`: route-level, so it runs after the instance's hooks (the one
 * that sets the principal), and holds its scope in its closure (reading `request.routeOptions`
 * would build an object a request).
 */
function requireScope(scope: Scope): onRequestHookHandler {
  const refusal = REFUSALS.get(scope)!;
  const challenge = `Bearer error="insufficient_scope", scope="${scope}"`;
  return function requireRouteScope(request, reply, done) {
    if (hasScope(principalOf(request).scopes, scope)) {
      done();
      return;
    }
    request.log.info({ scope }, 'token lacks the route\'s scope');
    reply.header('www-authenticate', challenge);
    sendError(reply, refusal);
  };
}
const CHECKS: ReadonlyMap<Scope, onRequestHookHandler> = new Map(SCOPES.map((s) => [s, requireScope(s)]));

/**
 * Gives each route registered in `scope` from now on its required scope, by method and path
 * without `prefix`, and the hook checking it. Must be added before the routes are registered,
 * in an instance whose own onRequest hook sets the principal.
 */
export function declareRouteScopes(scope: FastifyInstance, prefix = ''): void {
  scope.addHook('onRoute', (route) => {
    if (route.config?.noScope === true) return;
    const path = route.url.startsWith(prefix) ? route.url.slice(prefix.length) : route.url;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const required = new Set(methods.map((m) => scopeOfRoute(m, path)));
    if (required.size !== 1) throw new Error(`route ${path} needs one scope for all its methods`);
    const needed = [...required][0]!;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.config = { ...route.config, requiredScope: needed };
    route.onRequest = [CHECKS.get(needed)!, ...own];
  });
}
