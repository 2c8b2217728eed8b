/**
 * The built console (packages/console/dist): hashed assets cached for a year and compressed,
 * index.html never cached, and every other /console/ path answered with index.html so that a
 * reload of /console/vehicles/… opens that screen (client-side routes).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { compressResponses } from '../compression.js';
import { PMTILES_PREFIX } from '../../domain/basemap.js';

/** Where npm workspaces put the console's build. */
export function defaultConsoleDist(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@telematics/console/package.json');
    const dist = join(dirname(manifest), 'dist');
    return existsSync(join(dist, 'index.html')) ? dist : undefined;
  } catch {
    return undefined;
  }
}

export function consoleAssets(distDir: string | undefined): FastifyPluginAsync {
  return async (app) => {
    if (distDir === undefined) {
      const notBuilt = async (_request: unknown, reply: FastifyReply) => reply.code(503).type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build`.');
      app.get('/console/', notBuilt);
      app.get('/console/*', notBuilt);
      return;
    }
    const index = await readFile(join(distDir, 'index.html'));
    await app.register(async (assets) => {
      await compressResponses(assets);
      await assets.register(fastifyStatic, {
        root: join(distDir, 'assets'), prefix: '/console/assets/', immutable: true, maxAge: '365d', index: false, wildcard: true,
      });
    });
    const sendIndex = async (_request: unknown, reply: FastifyReply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(index);
    app.get('/console/', sendIndex);
    app.get('/console/*', sendIndex);
  };
}

/**
 * A local `.pmtiles` basemap, read by the map with HTTP Range requests (one archive, no tile
 * server). Only that one file is reachable under the prefix.
 */
export function pmtilesBasemap(file: string): FastifyPluginAsync {
  return async (app) => {
    const name = basename(file);
    await app.register(fastifyStatic, {
      root: dirname(file), prefix: PMTILES_PREFIX, serve: false, acceptRanges: true, maxAge: '1h',
    });
    app.get(`${PMTILES_PREFIX}${encodeURIComponent(name)}`, async (_request, reply) => reply.type('application/vnd.pmtiles').sendFile(name));
  };
}
