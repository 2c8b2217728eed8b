import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { resolveConsoleSession, type ConsoleSessionSettings } from '../auth/console-sessions.js';
import type { Clock } from '../domain/clock.js';
import { errors, ServiceError } from '../domain/errors.js';
import { sendError } from '../http/error-handler.js';
import { setPrincipal } from '../http/authenticate-hook.js';
import type { StoreConnection } from '../store/connection.js';
import { isCrossSite } from './cross-site-check.js';
import { clearSessionCookie, sessionIdOf } from './session-cookie.js';

/**
 * An onRequest hook: the console session's application becomes the caller, exactly as a bearer
 * token's would, so the routes behind it are the interface's own. Runs before the body is read.
 */
export function sessionHook(store: StoreConnection, clock: Clock, settings: ConsoleSessionSettings): onRequestAsyncHookHandler {
  return async function consoleSession(request: FastifyRequest, reply: FastifyReply) {
    if (isCrossSite(request)) return sendError(reply, new ServiceError(errors.consoleCrossSite));
    const id = sessionIdOf(request);
    const session = id === undefined ? undefined : await resolveConsoleSession(store, id, clock.now(), settings);
    if (!session) {
      if (id !== undefined) clearSessionCookie(request, reply);
      return sendError(reply, new ServiceError(errors.notAuthenticated));
    }
    setPrincipal(request, session.principal);
  };
}
