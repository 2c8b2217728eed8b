/**
 * How /docs (swagger-ui) presents itself: the service's name in the tab, the top bar and the
 * icon, not the framework's. Pictures are inline SVG, so nothing is fetched from elsewhere.
 */
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

export const SERVICE_TITLE = 'Vehicle Telematics Service';

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40" viewBox="0 0 400 40">`
  + `<text x="0" y="28" font-family="sans-serif" font-size="24" font-weight="bold" fill="#ffffff">${SERVICE_TITLE}</text></svg>`;

const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/>'
  + '<path d="M16 5a8 8 0 0 0-8 8c0 6 8 14 8 14s8-8 8-14a8 8 0 0 0-8-8zm0 11a3 3 0 1 1 0-6 3 3 0 0 1 0 6z" fill="#ffffff"/></svg>';

export const DOCS_PAGE: Pick<FastifySwaggerUiOptions, 'theme' | 'logo'> = {
  theme: {
    title: `${SERVICE_TITLE}: API`,
    favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: ICON }],
  },
  logo: { type: 'image/svg+xml', content: LOGO },
};
