/**
 * /console/session: a person signs in (POST: e-mail, password and, with a second factor, its
 * code), who is signed in (GET), sign out (DELETE). Sign-in is limited per address before the
 * body is read, and attempts per e-mail from that address before the hash. Signing in again ends
 * the session the browser held. Applications have POST /token; the console is for people.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { closeConsoleSession } from '../../auth/console-sessions.js';
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
import { findCompany } from '../../store/registry-queries.js';
import type { ConsoleSettings } from './console-settings.js';
import { isCrossSite } from './cross-site-check.js';
import { clearSessionCookie, sessionIdOf } from './session-cookie.js';
import { personSignIn } from './person-sign-in.js';

const SIGN_IN_BODY_LIMIT = 8 * 1024;

export function sessionRoutes(deps: AppDeps, settings: ConsoleSettings, limits: RequestLimits): FastifyPluginAsync {
  const signSecrets = new OpenedSignSecrets(deps.keyring);
  const userDeps = userDepsOf(deps, settings);
  const signIn = personSignIn(deps, settings);
  return async (app) => {
    const describe = async (principal: Principal, expiresAt: number, mayCommand: boolean) => {
      const company = await findCompany(deps.store.db, principal.companyId);
      return {
        company: company?.name ?? '',
        user: { email: principal.user!.email, role: principal.user!.role },
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
    }, async (request, reply) => signInPerson(request, reply, (request.body ?? {}) as Record<string, unknown>));

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
      const opened = await signIn(request, reply, verified.user, verified.secondFactor);
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
