import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { AuthenticatedCallers } from '../auth/authenticated-callers.js';
import { authenticateBearer, type Principal } from '../auth/authenticate-bearer.js';
import { VerifiedTokenCache } from '../auth/verified-token-cache.js';
import type { AppDeps } from './app-deps.js';
import { hasScope, type Scope } from '../domain/scopes.js';
import { sendError } from './error-handler.js';

const PRINCIPAL = Symbol('principal');
type WithPrincipal = FastifyRequest & { [PRINCIPAL]?: Principal };

/**
 * An onRequest hook: runs before the body is read, so unauthenticated bodies are never parsed.
 * A callback, not an async function: a caller seen before (AuthenticatedCallers) goes on at once.
 * Every route behind it shares its cache of verified tokens.
 */
export function authenticateHook(deps: AppDeps): onRequestHookHandler {
  const verified = new VerifiedTokenCache();
  const callers = new AuthenticatedCallers();
  return function authenticate(request, reply, done) {
    const header = request.headers.authorization;
    const now = deps.clock.now();
    const changes = deps.store.registryChanges;
    const known = header === undefined ? undefined : callers.get(header, now, changes, request.raw.socket ?? undefined);
    if (known !== undefined) {
      (request as WithPrincipal)[PRINCIPAL] = known;
      done();
      return;
    }
    const generation = AuthenticatedCallers.generationOf(changes);
    authenticateBearer(deps.store, deps.keyring, deps.tokenSettings, header, now, verified).then((outcome) => {
      if ('rejected' in outcome) {
        request.log.info({ reason: outcome.reason }, 'bearer token refused');
        sendError(reply, outcome.rejected);
        return;
      }
      callers.remember(header!, outcome.principal, outcome.expiresAt, generation, changes);
      (request as WithPrincipal)[PRINCIPAL] = outcome.principal;
      done();
    }, done);
  };
}

/**
 * Whether a request with `header` would be let through now, by the same check as the hook (a
 * verified-token cache of its own, the application read through the registry cache): for what outlives its
 * request, an event stream. With `scope`, the application must also still hold it (scopes.ts): a
 * stream stops once its scope is taken away, as it does once its credentials are.
 */
export function stillAuthenticated(deps: AppDeps, scope?: Scope): (header: string | undefined) => Promise<boolean> {
  const verified = new VerifiedTokenCache();
  return async (header) => {
    const outcome = await authenticateBearer(deps.store, deps.keyring, deps.tokenSettings, header, deps.clock.now(), verified);
    return !('rejected' in outcome) && (scope === undefined || hasScope(outcome.principal.scopes, scope));
  };
}

/** For another way in (the console's session): the caller the routes behind it will see. */
export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  (request as WithPrincipal)[PRINCIPAL] = principal;
}

/** The authenticated caller of a route behind `authenticateHook`. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = (request as WithPrincipal)[PRINCIPAL];
  if (!principal) throw new Error('route is missing the authentication hook');
  return principal;
}
