import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ConsoleSessionSettings } from '../../auth/console-sessions.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { resolveOperatorSession, type OperatorSession } from '../../operators/operator-sessions.js';
import type { AppDeps } from '../app-deps.js';
import { isCrossSite } from '../console/cross-site-check.js';
import { operatorCookie } from '../console/session-cookie.js';
import { sendError } from '../error-handler.js';
import { setOperator } from './operator-request.js';

/** The request's live operator session, or undefined; a cookie naming no live session is cleared. */
export async function currentOperatorSession(
  deps: Pick<AppDeps, 'store' | 'clock'>, settings: ConsoleSessionSettings, request: FastifyRequest, reply: FastifyReply,
): Promise<OperatorSession | undefined> {
  const id = operatorCookie.idOf(request);
  const session = id === undefined ? undefined : await resolveOperatorSession(deps.store.db, id, deps.clock.now(), settings);
  if (!session && id !== undefined) operatorCookie.clear(request, reply);
  return session;
}

/** An onRequest hook of /operator/api: the CSRF check, then a live operator session or 401. Runs before the body is read. */
export function operatorSessionHook(deps: Pick<AppDeps, 'store' | 'clock'>, settings: ConsoleSessionSettings): onRequestAsyncHookHandler {
  return async function operatorSession(request, reply) {
    if (isCrossSite(request)) return sendError(reply, new ServiceError(errors.consoleCrossSite));
    const session = await currentOperatorSession(deps, settings, request, reply);
    if (!session) return sendError(reply, new ServiceError(errors.notAuthenticated));
    setOperator(request, session.operator);
  };
}
