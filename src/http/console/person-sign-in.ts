/**
 * The end of every sign-in of a company's person, however they proved who they are (a password,
 * a second factor, the identity provider): the session the browser held ends, a new one opens,
 * its cookie is set, and the sign-in is a log line (never the cookie's value).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { closeConsoleSession, openUserConsoleSession, type OpenedSession } from '../../auth/console-sessions.js';
import type { Role } from '../../domain/roles.js';
import type { UserRow } from '../../store/users-queries.js';
import type { AppDeps } from '../app-deps.js';
import type { ConsoleSettings } from './console-settings.js';
import { plainHttpWarning, sessionIdOf, setSessionCookie } from './session-cookie.js';

export type SignInPerson = (request: FastifyRequest, reply: FastifyReply, user: UserRow, secondFactor: string) => Promise<OpenedSession>;

export function personSignIn(deps: Pick<AppDeps, 'store' | 'keyring' | 'clock'>, settings: ConsoleSettings): SignInPerson {
  const warnIfPlain = plainHttpWarning('console');
  return async (request, reply, user, secondFactor) => {
    const previous = sessionIdOf(request);
    if (previous !== undefined) await closeConsoleSession(deps.store, previous);
    const opened = await openUserConsoleSession(deps.store, deps.keyring, { ...user, role: user.role as Role }, deps.clock.now(), settings.sessions);
    warnIfPlain(request);
    setSessionCookie(request, reply, opened.id, Math.floor(settings.sessions.maxMs / 1000));
    request.log.info({ user_id: user.id, second_factor: secondFactor }, 'console sign-in');
    return opened;
  };
}
