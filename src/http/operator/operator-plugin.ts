/**
 * The operator console, served with the web console: its page (`/operator/`, the console
 * build's operator.html), its sign-in (operator-session-routes.ts) and its API (operator-api.ts).
 * Its people are the operators set up with `telematics admin operator add`, apart from every
 * company's; their sessions have their own table and cookie.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { AppDeps } from '../app-deps.js';
import type { RequestLimits } from '../rate-limits.js';
import type { ConsoleSettings } from '../console/console-settings.js';
import { DEFAULT_USER_SETTINGS } from '../../users/user-deps.js';
import { operatorApi, OPERATOR_API_PREFIX } from './operator-api.js';
import { operatorSessionRoutes } from './operator-session-routes.js';

export function operatorPlugin(deps: AppDeps, settings: ConsoleSettings, distDir: string | undefined, limits: RequestLimits): FastifyPluginAsync {
  return async (app) => {
    const cost = (settings.users ?? DEFAULT_USER_SETTINGS).passwordHashCost;
    await app.register(operatorSessionRoutes(deps, settings.sessions, cost, limits));
    await app.register(operatorApi(deps, settings.sessions), { prefix: OPERATOR_API_PREFIX });
    const page = await operatorPage(distDir);
    const sendPage = async (_request: unknown, reply: FastifyReply) => (page === undefined
      ? reply.code(503).type('text/plain; charset=utf-8').send('The console is not built: run `npm run build`.')
      : reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page));
    app.get('/operator', async (_request, reply) => reply.redirect('/operator/', 302));
    app.get('/operator/', sendPage);
  };
}

/** The built page; undefined when the console is not built, or was built before the operator console. */
async function operatorPage(distDir: string | undefined): Promise<Buffer | undefined> {
  if (distDir === undefined) return undefined;
  try {
    return await readFile(join(distDir, 'operator.html'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
