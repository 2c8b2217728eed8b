/**
 * The security headers of the pages the service serves to browsers (the console, and the page a
 * share link opens), with a strict Content-Security-Policy.
 */
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { basemapOrigin, type Basemap } from '../../domain/basemap.js';

/**
 * helmet's defaults, but: workers from the same origin (MapLibre's), styles inline (MapLibre and
 * uPlot position elements with style attributes), images from data: and blob:, the basemap's
 * origin where one is set, and no `upgrade-insecure-requests`, which breaks a plain-HTTP LAN
 * install by rewriting every asset to https.
 */
function contentSecurityPolicy(basemap: Basemap | null) {
  const origin = basemap ? basemapOrigin(basemap) : undefined;
  const basemapOrigins = origin === undefined ? [] : [origin];
  return {
    useDefaults: false,
    directives: {
      'default-src': ["'self'"],
      'base-uri': ["'self'"],
      'connect-src': ["'self'", ...basemapOrigins],
      'font-src': ["'self'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
      'img-src': ["'self'", 'data:', 'blob:', ...basemapOrigins],
      'object-src': ["'none'"],
      'script-src': ["'self'"],
      'script-src-attr': ["'none'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'worker-src': ["'self'", 'blob:'],
    },
  };
}

/** Helmet for the pages of this plugin scope (and only them: the scope is encapsulated). */
export async function registerPageHeaders(app: FastifyInstance, basemap: Basemap | null): Promise<void> {
  // HSTS is the TLS terminator's to set for the whole host, not one application's route. No
  // X-Frame-Options: the CSP's frame-ancestors says it, and every browser that reads one
  // header reads the other (where both are sent, frame-ancestors wins), so a second header
  // could only ever disagree (helmet's SAMEORIGIN beside 'none' did).
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: contentSecurityPolicy(basemap), crossOriginEmbedderPolicy: false, strictTransportSecurity: false, xFrameOptions: false,
  });
}
