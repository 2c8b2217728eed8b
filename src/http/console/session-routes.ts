/**
 * /console/session: sign in (POST, the application's client id and secret, and its sign-secret
 * to send commands; checked on the server and never kept), who is signed in (GET), sign out
 * (DELETE). Sign-in is limited per address before the body is read, and failures per client id,
 * as POST /token is. Signing in again ends the session the browser held.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { closeConsoleSession, openConsoleSession, openUserConsoleSession } from '../../auth/console-sessions.js';
import type { Role } from '../../domain/roles.js';
import { scopeClaimOf } from '../../domain/scopes.js';
import { verifyUserSignIn } from '../../users/sign-in-user.js';
import { userDepsOf } from './console-settings.js';
import { currentSession } from './session-hook.js';
import { addressKey } from '../../domain/client-address.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { formatIsoLocal } from '../../domain/time.js';
import { publicBasemap } from '../../domain/basemap.js';
import type { Principal } from '../../auth/authenticate-bearer.js';
import { OpenedSignSecrets } from '../../registry/application-secrets.js';
import type { AppDeps } from '../app-deps.js';
import type { RequestLimits } from '../rate-limits.js';
import { findApplicationById } from '../../store/applications-queries.js';
import { findCompany } from '../../store/registry-queries.js';
import type { ConsoleSettings } from './console-settings.js';
import { isCrossSite } from './cross-site-check.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from './session-cookie.js';

const SIGN_IN_BODY_LIMIT = 8 * 1024;
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

export function sessionRoutes(deps: AppDeps, settings: ConsoleSettings, limits: RequestLimits): FastifyPluginAsync {
  const signSecrets = new OpenedSignSecrets(deps.keyring);
  const userDeps = userDepsOf(deps, settings);
  return async (app) => {
    let warnedPlainHttp = false;
    const describe = async (principal: Principal, expiresAt: number, mayCommand: boolean) => {
      const [application, company] = await Promise.all([findApplicationById(deps.store.db, principal.applicationId), findCompany(deps.store.db, principal.companyId)]);
      return {
        client_id: principal.user ? null : principal.clientId, application: principal.user ? null : application?.name ?? '', company: company?.name ?? '',
        user: principal.user ? { email: principal.user.email, role: principal.user.role } : null,
        scopes: scopeClaimOf(principal.scopes).split(' ').filter((s) => s !== ''),
        expires: formatIsoLocal(expiresAt), commands: mayCommand, basemap: settings.basemap ? publicBasemap(settings.basemap) : null,
        // The page holds a fleet answer while time passes: past this age a state no longer stands.
        offline_after_seconds: Math.round(deps.vehicleStates.offlineAfterMs / 1000),
      };
    };

    app.post('/console/session', {
      bodyLimit: SIGN_IN_BODY_LIMIT,
      onRequest: async (request) => {
        await limits.tokenPerAddress.take(addressKey(request.ip), deps.clock.now());
        if (isCrossSite(request)) throw new ServiceError(errors.consoleCrossSite);
      },
    }, async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (body.email !== undefined) return signInPerson(request, reply, body);
      const clientId = body.client_id;
      const clientSecret = body.client_secret;
      const signSecret = body.sign_secret === '' || body.sign_secret === null ? undefined : body.sign_secret;
      if (typeof clientId !== 'string' || typeof clientSecret !== 'string' || clientId === '' || clientSecret === ''
        || (signSecret !== undefined && typeof signSecret !== 'string')) {
        throw new ServiceError(errors.consoleSignInFieldsMissing);
      }
      const previous = sessionIdOf(request);
      if (previous !== undefined) await closeConsoleSession(deps.store, previous);
      let opened;
      try {
        opened = await openConsoleSession(deps.store, deps.keyring, { clientId, clientSecret, signSecret }, deps.clock.now(), settings.sessions);
      } catch (error) {
        if (error instanceof ServiceError && error.entry === errors.invalidClientCredentials) await limits.tokenPerClient.take(clientId, deps.clock.now());
        throw error;
      }
      if (request.protocol !== 'https' && !LOOPBACK.test(request.host) && !warnedPlainHttp) {
        warnedPlainHttp = true;
        request.log.warn({ host: request.host }, 'console session over plain HTTP: its cookie cannot be Secure; serve the console over HTTPS');
      }
      setSessionCookie(request, reply, opened.id, Math.floor(settings.sessions.maxMs / 1000));
      request.log.info({ client_id: opened.principal.clientId }, 'console sign-in');
      reply.header('cache-control', 'no-store');
      return describe(opened.principal, opened.expiresAt, opened.mayCommand);
    });

    /** A person's sign-in: e-mail, password and, with a second factor, its code. */
    async function signInPerson(request: FastifyRequest, reply: FastifyReply, body: Record<string, unknown>) {
      const { email, password } = body;
      const code = body.code === '' || body.code === null ? undefined : body.code;
      if (typeof email !== 'string' || typeof password !== 'string' || email === '' || password === '' || (code !== undefined && typeof code !== 'string')) {
        throw new ServiceError(errors.userSignInFieldsMissing);
      }
      // Every attempt counts, before the hash, per e-mail from this address: guesses from one place
      // are held to the rate, while the person signing in from elsewhere is never locked out.
      await limits.tokenPerClient.take(`user:${addressKey(request.ip)}:${email.toLowerCase().slice(0, 254)}`, deps.clock.now());
      const verified = await verifyUserSignIn(userDeps, email, password.slice(0, 1024), code);
      const previous = sessionIdOf(request);
      if (previous !== undefined) await closeConsoleSession(deps.store, previous);
      const { user } = verified;
      const opened = await openUserConsoleSession(deps.store, deps.keyring, { ...user, role: user.role as Role }, deps.clock.now(), settings.sessions);
      setSessionCookie(request, reply, opened.id, Math.floor(settings.sessions.maxMs / 1000));
      request.log.info({ user_id: user.id, second_factor: verified.secondFactor }, 'console sign-in');
      reply.header('cache-control', 'no-store');
      return describe(opened.principal, opened.expiresAt, opened.mayCommand);
    }

    // Signed out is an answer here, not an error (204): the page asks this first, on every load.
    app.get('/console/session', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const session = await currentSession(deps.store, signSecrets, deps.clock, settings.sessions, request, reply);
      if (!session) return reply.code(204).send();
      return describe(session.principal, session.expiresAt, session.mayCommand);
    });

    app.delete('/console/session', {
      onRequest: async (request) => {
        if (isCrossSite(request)) throw new ServiceError(errors.consoleCrossSite);
      },
    }, async (request, reply) => {
      const id = sessionIdOf(request);
      if (id !== undefined) await closeConsoleSession(deps.store, id);
      clearSessionCookie(request, reply);
      return reply.code(204).send();
    });
  };
}
