/**
 * /share-links: a company's links to one vehicle's live position (docs/share-links.md). The
 * answer to a creation holds the link's URL, once: only a hash of its secret is kept. The URL is
 * made from the request's own origin (behind a trusted proxy, the one the client used).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CreatedShareLink, ShareLink, ShareLinkParams, ShareLinkRequest, ShareLinksPage, ShareLinksQuery } from '@telematics/contract';
import { Type } from 'typebox';
import { callerActor } from '../audit/record-audit.js';
import { createShareLink, listCompanyShareLinks, MAX_OPEN_SHARE_LINKS, readShareLink, revokeCompanyShareLink, type ShareLinkDeps } from '../shares/manage-share-links.js';
import { principalOf } from './authenticate-hook.js';
import { AUTH_ERRORS, bearerSecurity, errorResponses, JSON_BODY_ERRORS, PATH_ERRORS } from './schemas.js';

export const SHARE_PAGE_PREFIX = '/share/';
const ONE_LINK = [...AUTH_ERRORS, ...PATH_ERRORS, 'shareLinkNotFound'] as const;

const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

export function shareLinkRoutes(deps: ShareLinkDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const companyOf = (request: FastifyRequest) => principalOf(request).companyId;

    app.post('/share-links', {
      schema: {
        operationId: 'createShareLink', summary: "Share a vehicle's live position",
        description: 'A link anyone may open, without an account, to follow one vehicle on a map until `expires_in` seconds from now (at most 7 days) or until revoked. '
          + 'Its page shows the label and the newest position on a map, nothing else of the vehicle (not its speed, VIN or plate). The URL is in this answer only. '
          + `A vehicle whose positions the company may not read is refused as POST /vehicle-data refuses it; a vehicle has at most ${MAX_OPEN_SHARE_LINKS} open links.`,
        tags: ['share links'], security: bearerSecurity, body: ShareLinkRequest,
        response: { 201: CreatedShareLink, ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'vinNotFound', 'unsupportedDatapoint', 'datapointNotInPlan', 'tooManyShareLinks') },
      },
    }, async (request, reply) => {
      const { link, token } = await createShareLink(deps, companyOf(request), request.body, callerActor(principalOf(request)));
      // The one answer that holds the link: no cache may keep it.
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...link, url: `${originOf(request)}${SHARE_PAGE_PREFIX}${token}` });
    });

    app.get('/share-links', {
      schema: {
        operationId: 'listShareLinks', summary: "List the company's share links",
        description: 'Newest first, a page at a time (pass next_cursor as `before`); ended links stay listed for 30 days. Never their URLs.',
        tags: ['share links'], security: bearerSecurity, querystring: ShareLinksQuery,
        response: { 200: ShareLinksPage, ...errorResponses(AUTH_ERRORS, 'invalidRequest') },
      },
    }, async (request) => listCompanyShareLinks(deps, companyOf(request), request.query));

    app.get('/share-links/:id', {
      schema: {
        operationId: 'getShareLink', summary: 'Read a share link', description: "One of the company's links; another company's reads as 404.",
        tags: ['share links'], security: bearerSecurity, params: ShareLinkParams, response: { 200: ShareLink, ...errorResponses(ONE_LINK) },
      },
    }, async (request) => readShareLink(deps, companyOf(request), request.params.id));

    app.delete('/share-links/:id', {
      schema: {
        operationId: 'revokeShareLink', summary: 'Revoke a share link',
        description: 'The link answers 410 from now on; it stays listed as `revoked`. Revoking it again changes nothing.',
        tags: ['share links'], security: bearerSecurity, params: ShareLinkParams, response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(ONE_LINK) },
      },
    }, async (request, reply) => {
      await revokeCompanyShareLink(deps, companyOf(request), request.params.id, callerActor(principalOf(request)));
      return reply.code(204).send(null);
    });
  };
}
