import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { resolveConsoleSession, type ConsoleSessionSettings, type ResolvedSession } from '../../auth/console-sessions.js';
import type { Clock } from '../../domain/clock.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { sendError } from '../error-handler.js';
import { setPrincipal } from '../authenticate-hook.js';
import type { StoreConnection } from '../../store/connection.js';
import type { OpenedSignSecrets } from '../../registry/application-secrets.js';
import { isCrossSite } from './cross-site-check.js';
import { clearSessionCookie, sessionIdOf } from './session-cookie.js';

/** The request's live session, or undefined; a cookie naming no live session is cleared. */
export async function currentSession(
  store: StoreConnection, signSecrets: OpenedSignSecrets, clock: Clock, settings: ConsoleSessionSettings, request: FastifyRequest, reply: FastifyReply,
): Promise<ResolvedSession | undefined> {
  const id = sessionIdOf(request);
  const session = id === undefined ? undefined : await resolveConsoleSession(store, signSecrets, id, clock.now(), settings);
  if (!session && id !== undefined) clearSessionCookie(request, reply);
  return session;
}

const MAY_COMMAND = Symbol('console session may command');
type WithCommandRight = FastifyRequest & { [MAY_COMMAND]?: boolean };

/**
 * An onRequest hook: the console session's application becomes the caller, exactly as a bearer
 * token's would, so the routes behind it are the interface's own. Runs before the body is read.
 */
export function sessionHook(store: StoreConnection, signSecrets: OpenedSignSecrets, clock: Clock, settings: ConsoleSessionSettings): onRequestAsyncHookHandler {
  return async function consoleSession(request: FastifyRequest, reply: FastifyReply) {
    if (isCrossSite(request)) return sendError(reply, new ServiceError(errors.consoleCrossSite));
    const session = await currentSession(store, signSecrets, clock, settings, request, reply);
    if (!session) return sendError(reply, new ServiceError(errors.notAuthenticated));
    setPrincipal(request, session.principal);
    (request as WithCommandRight)[MAY_COMMAND] = session.mayCommand;
  };
}

/** Whether the session of a request behind `sessionHook` proved the sign-secret (console-sessions.ts). */
export function sessionMayCommand(request: FastifyRequest): boolean {
  return (request as WithCommandRight)[MAY_COMMAND] === true;
}
