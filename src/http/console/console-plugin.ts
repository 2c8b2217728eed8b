/**
 * Everything the web console adds to the API port: `/` and `/console` redirect to `/console/`,
 * the built console, its session (session-routes.ts) and the interface's routes on that session
 * (console-api.ts), the operator console (../operator/), all behind security headers with a strict Content-Security-Policy
 * (page-headers.ts).
 */
import fastifyCookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../app-deps.js';
import type { RequestLimits } from '../rate-limits.js';
import { consoleApi, CONSOLE_API_PREFIX } from './console-api.js';
import { consoleAssets, defaultConsoleDist, pmtilesBasemap } from './console-assets.js';
import type { ConsoleSettings } from './console-settings.js';
import { sessionRoutes } from './session-routes.js';
import { registerPageHeaders } from './page-headers.js';
import { passwordRoutes } from './password-routes.js';
import { oidcRoutes } from './oidc-routes.js';
import { userDepsOf } from './console-settings.js';
import { operatorPlugin } from '../operator/operator-plugin.js';

export function consolePlugin(deps: AppDeps, settings: ConsoleSettings, limits: RequestLimits): FastifyPluginAsync {
  return async (app) => {
    // None of the console's routes is part of the interface's document.
    app.addHook('onRoute', (route) => { route.schema = { ...route.schema, hide: true }; });
    await app.register(fastifyCookie);
    await registerPageHeaders(app, settings.basemap);
    const toConsole = async (_request: unknown, reply: import('fastify').FastifyReply) => reply.redirect('/console/', 302);
    app.get('/', toConsole);
    app.get('/console', toConsole);
    await app.register(sessionRoutes(deps, settings, limits));
    await app.register(passwordRoutes(userDepsOf(deps, settings), limits));
    await app.register(oidcRoutes(deps, settings, limits));
    await app.register(consoleApi(deps, settings, limits), { prefix: CONSOLE_API_PREFIX });
    const distDir = settings.distDir ?? defaultConsoleDist();
    await app.register(operatorPlugin(deps, settings, distDir, limits));
    if (settings.basemap?.kind === 'pmtiles') await app.register(pmtilesBasemap(settings.basemap.file));
    await app.register(consoleAssets(distDir));
  };
}
