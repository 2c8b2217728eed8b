/**
 * CSRF defence for the console's state changes (OWASP: custom request header, plus Fetch
 * Metadata where the browser sends it). A cross-site form cannot add a custom header, and a
 * cross-origin fetch that adds one needs a CORS preflight the service never grants. SameSite=Strict
 * on the cookie is the third layer.
 */
import type { FastifyRequest } from 'fastify';

export const CONSOLE_HEADER = 'x-telematics-console';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isCrossSite(request: FastifyRequest): boolean {
  if (SAFE.has(request.method)) return false;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return true;
  return request.headers[CONSOLE_HEADER] !== '1';
}
