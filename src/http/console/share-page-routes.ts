/**
 * A share link opened: `/share/<token>` is the map page (the console's share.html, which shows
 * the vehicle and nothing else) and `/share/<token>/position` what the page polls. A revoked or
 * expired link answers 410, an unknown one 404, both as a short page of their own in both of the
 * console's languages (a customer opening an old link reads why it shows nothing). The token is
 * in the path, so the request line names the route (`/share/:token`), never the URL, and
 * `Referrer-Policy: no-referrer` keeps it from the basemap's servers. Served with or without the
 * console (`--no-console` stops the console, not the links an application made), with the
 * console's security headers, and left out of the OpenAPI document as the console is.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { publicBasemap } from '../../domain/basemap.js';
import { errors, ServiceError } from '../../domain/errors.js';
import { openShareLink, readSharedPosition } from '../../shares/read-shared-position.js';
import type { ShareLinkDeps } from '../../shares/manage-share-links.js';
import type { ConsoleSettings } from './console-settings.js';
import type { RequestLimits } from '../rate-limits.js';
import { addressKey } from '../../domain/client-address.js';
import { defaultConsoleDist } from './console-assets.js';
import { registerPageHeaders } from './page-headers.js';

// Any text: a token of the wrong shape is just not a link (404), never a validation error.
const TokenParams = Type.Object({ token: Type.String() });

const endedPage = (status: 404 | 410) => {
  const [en, pt] = status === 410
    ? ['This link has expired or was revoked.', 'Este link expirou ou foi revogado.']
    : ['This link does not exist.', 'Este link não existe.'];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<title>${en}</title></head><body><main><h1>${en}</h1><p lang="pt-BR">${pt}</p><p>Ask whoever sent it for a new one. · <span lang="pt-BR">Peça um novo a quem o enviou.</span></p></main></body></html>`;
};

export function sharePageRoutes(deps: ShareLinkDeps, settings: ConsoleSettings | undefined, limits: RequestLimits): FastifyPluginAsync {
  return async (parent) => {
    parent.addHook('onRoute', (route) => { route.schema = { ...route.schema, hide: true }; });
    // Before any lookup: a link's holder may poll it, not flood the database.
    parent.addHook('onRequest', async (request) => { await limits.sharePerAddress.take(addressKey(request.ip), deps.clock.now()); });
    await registerPageHeaders(parent, settings?.basemap ?? null);
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const page = await sharePage(settings?.distDir ?? defaultConsoleDist());
    const basemap = settings?.basemap ? publicBasemap(settings.basemap) : null;

    app.get('/share/:token', { schema: { params: TokenParams } }, async (request, reply) => {
      reply.header('cache-control', 'no-store');
      try {
        await openShareLink(deps, request.params.token);
      } catch (error) {
        return endedReply(error, reply);
      }
      if (page === undefined) return reply.code(503).type('text/plain; charset=utf-8').send('The console is not built: run `npm run build`.');
      return reply.type('text/html; charset=utf-8').send(page);
    });

    app.get('/share/:token/position', { schema: { params: TokenParams } }, async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { ...(await readSharedPosition(deps, request.params.token)), basemap };
    });
  };
}

/** The built page; undefined (answered 503) when the console is not built, or was built before share links. */
async function sharePage(distDir: string | undefined): Promise<Buffer | undefined> {
  if (distDir === undefined) return undefined;
  try {
    return await readFile(join(distDir, 'share.html'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function endedReply(error: unknown, reply: FastifyReply) {
  if (!(error instanceof ServiceError) || (error.entry !== errors.shareLinkGone && error.entry !== errors.shareLinkNotFound)) throw error;
  const status = error.entry === errors.shareLinkGone ? 410 : 404;
  return reply.code(status).type('text/html; charset=utf-8').send(endedPage(status));
}
