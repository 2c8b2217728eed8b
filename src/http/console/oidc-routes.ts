/**
 * Single sign-on's two steps in the browser (users/oidc-sign-in.ts): `/console/oidc/start`
 * sends the person to the identity provider with a sealed cookie of the sign-in in flight, and
 * `/console/oidc/callback` takes the provider's answer back, signs the invited person in and
 * opens the console. The cookie is SameSite=Lax: the provider's redirect back is a cross-site
 * navigation, which a Strict cookie would not come with. A failure goes back to the sign-in page
 * with its reason in the URL's fragment (`#sso=unknown-user`); nothing secret is ever in a URL
 * the service makes. The callback answers a page that opens /console/ itself, so the Strict
 * session cookie is sent from a same-site navigation.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { addressKey } from '../../domain/client-address.js';
import { OIDC_PENDING_MS, OidcSignIn, OidcSignInFailed, requireOidc, userOfSso } from '../../users/oidc-sign-in.js';
import type { AppDeps } from '../app-deps.js';
import type { RequestLimits } from '../rate-limits.js';
import type { ConsoleSettings } from './console-settings.js';
import { userDepsOf } from './console-settings.js';
import { personSignIn } from './person-sign-in.js';

const pendingCookie = (request: FastifyRequest) => (request.protocol === 'https' ? '__Host-telematics_oidc' : 'telematics_oidc');
const COOKIE_PATH = '/console/oidc/';
export const OIDC_CALLBACK_PATH = '/console/oidc/callback';

const OPEN_CONSOLE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/console/"><title>Signed in</title></head>'
  + '<body><p><a href="/console/">Open the console</a></p></body></html>';

export function oidcRoutes(deps: AppDeps, settings: ConsoleSettings, limits: RequestLimits): FastifyPluginAsync {
  const oidc = settings.oidc ? new OidcSignIn(settings.oidc, deps.keyring) : undefined;
  const userDeps = userDepsOf(deps, settings);
  const signIn = personSignIn(deps, settings);
  return async (app) => {
    // Over HTTPS `__Host-` (Path=/, no Domain): a sibling subdomain cannot plant its own sign-in in flight.
    const cookieOptions = (request: FastifyRequest) => (request.protocol === 'https'
      ? { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: true }
      : { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' as const, secure: false });

    /** What the sign-in page offers besides e-mail and password. */
    app.get('/console/sign-in-options', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return { sso: oidc ? { name: oidc.settings.name, start: '/console/oidc/start' } : null };
    });

    app.get('/console/oidc/start', {
      onRequest: async (request) => { await limits.tokenPerAddress.take(addressKey(request.ip), deps.clock.now()); },
    }, async (request, reply) => {
      const sso = requireOidc(oidc);
      let started;
      try {
        started = await sso.start(`${request.protocol}://${request.host}${OIDC_CALLBACK_PATH}`, deps.clock.now());
      } catch (error) {
        request.log.warn({ err: error, issuer: sso.settings.issuer }, 'single sign-on: the identity provider could not be read');
        return failedTo(reply, 'provider');
      }
      reply.setCookie(pendingCookie(request), started.cookie, { ...cookieOptions(request), maxAge: Math.floor(OIDC_PENDING_MS / 1000) });
      reply.header('cache-control', 'no-store');
      return reply.redirect(started.url, 302);
    });

    app.get(OIDC_CALLBACK_PATH, {
      // Each callback may cost a call to the provider's token endpoint with the service's client credentials.
      onRequest: async (request) => { await limits.tokenPerAddress.take(addressKey(request.ip), deps.clock.now()); },
    }, async (request, reply) => {
      const sso = requireOidc(oidc);
      reply.header('cache-control', 'no-store');
      reply.clearCookie(pendingCookie(request), cookieOptions(request));
      try {
        // Only the query is read, never the Host header: the provider's answer is checked against the redirect URI sealed at the start.
        const vouched = await sso.finish(new URL(request.url, 'http://callback.invalid'), request.cookies[pendingCookie(request)], deps.clock.now());
        const user = await userOfSso(userDeps, sso.settings.companyId, vouched);
        await signIn(request, reply, user, 'sso');
        return reply.type('text/html; charset=utf-8').send(OPEN_CONSOLE);
      } catch (error) {
        if (!(error instanceof OidcSignInFailed)) {
          request.log.warn({ err: error }, 'single sign-on: the sign-in could not be completed');
          return failedTo(reply, 'refused');
        }
        request.log.info({ reason: error.reason, detail: error.message }, 'single sign-on refused');
        return failedTo(reply, error.reason);
      }
    });
  };
}

/** Back to the sign-in page, which says why. */
function failedTo(reply: FastifyReply, reason: string) {
  return reply.redirect(`/console/#sso=${reason}`, 303);
}
