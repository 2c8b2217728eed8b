/**
 * Everything the web console adds to the API port: `/` and `/console` redirect to `/console/`,
 * the built console, its session (session-routes.ts), the interface's routes on that session
 * (console-api.ts) and the pages share links open (share-page-routes.ts), all behind security
 * headers with a strict Content-Security-Policy.
 */
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../app-deps.js';
import { basemapOrigin } from '../../domain/basemap.js';
import type { RequestLimits } from '../rate-limits.js';
import { consoleApi, CONSOLE_API_PREFIX } from './console-api.js';
import { consoleAssets, defaultConsoleDist, pmtilesBasemap } from './console-assets.js';
import type { ConsoleSettings } from './console-settings.js';
import { sessionRoutes } from './session-routes.js';
import { sharePageRoutes } from './share-page-routes.js';
import { passwordRoutes } from './password-routes.js';
import { userDepsOf } from './console-settings.js';

/**
 * helmet's defaults, but: workers from the same origin (MapLibre's), styles inline (MapLibre and
 * uPlot position elements with style attributes), images from data: and blob:, the basemap's
 * origin where one is set, and no `upgrade-insecure-requests`, which breaks a plain-HTTP LAN
 * install by rewriting every asset to https.
 */
function contentSecurityPolicy(settings: ConsoleSettings) {
  const origin = settings.basemap ? basemapOrigin(settings.basemap) : undefined;
  const basemap = origin === undefined ? [] : [origin];
  return {
    useDefaults: false,
    directives: {
      'default-src': ["'self'"],
      'base-uri': ["'self'"],
      'connect-src': ["'self'", ...basemap],
      'font-src': ["'self'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
      'img-src': ["'self'", 'data:', 'blob:', ...basemap],
      'object-src': ["'none'"],
      'script-src': ["'self'"],
      'script-src-attr': ["'none'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'worker-src': ["'self'", 'blob:'],
    },
  };
}

export function consolePlugin(deps: AppDeps, settings: ConsoleSettings, limits: RequestLimits): FastifyPluginAsync {
  return async (app) => {
    // None of the console's routes is part of the interface's document.
    app.addHook('onRoute', (route) => { route.schema = { ...route.schema, hide: true }; });
    await app.register(fastifyCookie);
    // HSTS is the TLS terminator's to set for the whole host, not one application's route. No
    // X-Frame-Options: the CSP's frame-ancestors says it, and every browser that reads one
    // header reads the other (where both are sent, frame-ancestors wins), so a second header
    // could only ever disagree (helmet's SAMEORIGIN beside 'none' did).
    await app.register(fastifyHelmet, {
      contentSecurityPolicy: contentSecurityPolicy(settings), crossOriginEmbedderPolicy: false, strictTransportSecurity: false, xFrameOptions: false,
    });
    const toConsole = async (_request: unknown, reply: import('fastify').FastifyReply) => reply.redirect('/console/', 302);
    app.get('/', toConsole);
    app.get('/console', toConsole);
    await app.register(sessionRoutes(deps, settings, limits));
    await app.register(passwordRoutes(userDepsOf(deps, settings), limits));
    await app.register(consoleApi(deps, settings, limits), { prefix: CONSOLE_API_PREFIX });
    const distDir = settings.distDir ?? defaultConsoleDist();
    await app.register(sharePageRoutes(deps, settings, distDir));
    if (settings.basemap?.kind === 'pmtiles') await app.register(pmtilesBasemap(settings.basemap.file));
    await app.register(consoleAssets(distDir));
  };
}
