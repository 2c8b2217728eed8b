/**
 * /console/session: sign in (POST, the application's client id and secret, and its sign-secret
 * to send commands; checked on the server and never kept), who is signed in (GET), sign out
 * (DELETE). Sign-in is limited per address before the body is read, and failures per client id,
 * as POST /token is. Signing in again ends the session the browser held.
 */
import type { FastifyPluginAsync } from 'fastify';
import { closeConsoleSession, openConsoleSession } from '../../auth/console-sessions.js';
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
  return async (app) => {
    let warnedPlainHttp = false;
    const describe = async (principal: Principal, expiresAt: number, mayCommand: boolean) => {
      const [application, company] = await Promise.all([findApplicationById(deps.store.db, principal.applicationId), findCompany(deps.store.db, principal.companyId)]);
      return {
        client_id: principal.clientId, application: application?.name ?? '', company: company?.name ?? '',
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
