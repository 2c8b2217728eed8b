import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AuditPage, AuditQuery } from '@telematics/contract';
import { parseAuditQuery, readAuditTrail } from '../audit/read-audit-trail.js';
import { principalOf } from './authenticate-hook.js';
import { AUTH_ERRORS, bearerSecurity, errorResponses } from './schemas.js';
import { compressResponses } from './compression.js';
import type { AppDeps } from './app-deps.js';

/** GET /audit (the company's audit trail); registered behind the authentication hook. */
export function auditRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    await compressResponses(app);
    app.get('/audit', {
      schema: {
        operationId: 'listAuditEntries',
        summary: 'Read the company\'s audit trail',
        description: 'Newest first; pass next_cursor as `before` for older entries. Every entry is chained to the one before by a hash '
          + '(`telematics admin audit verify` checks the chain). See docs/audit.md.',
        tags: ['audit'],
        security: bearerSecurity,
        querystring: AuditQuery,
        response: {
          200: AuditPage,
          ...errorResponses(AUTH_ERRORS, 'auditCursorInvalid', 'auditLimitInvalid', 'invalidDate', 'invalidRequest'),
        },
      },
    }, async (request) => readAuditTrail(deps.store.db, principalOf(request).companyId, parseAuditQuery(request.query)));
  };
}
