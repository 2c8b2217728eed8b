import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { authenticateBearer, type Principal } from '../auth/authenticate-bearer.js';
import { VerifiedTokenCache } from '../auth/verified-token-cache.js';
import type { Keyring } from '../security/keyring.js';
import type { AppDeps } from './app-deps.js';
import { sendError } from './error-handler.js';

const PRINCIPAL = Symbol('principal');
type WithPrincipal = FastifyRequest & { [PRINCIPAL]?: Principal };

/** One cache of verified tokens per keyring: every route of an app shares it. */
const caches = new WeakMap<Keyring, VerifiedTokenCache>();

function verifiedTokensOf(keyring: Keyring): VerifiedTokenCache {
  let cache = caches.get(keyring);
  if (!cache) caches.set(keyring, (cache = new VerifiedTokenCache()));
  return cache;
}

/** An onRequest hook: runs before the body is read, so unauthenticated bodies are never parsed. */
export function authenticateHook(deps: AppDeps): onRequestAsyncHookHandler {
  const verified = verifiedTokensOf(deps.keyring);
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    const outcome = await authenticateBearer(deps.store, deps.keyring, deps.tokenSettings, request.headers.authorization, deps.clock.now(), verified);
    if ('rejected' in outcome) {
      request.log.info({ reason: outcome.reason }, 'bearer token refused');
      return sendError(reply, outcome.rejected);
    }
    (request as WithPrincipal)[PRINCIPAL] = outcome.principal;
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
