import type { FastifyPluginAsync } from 'fastify';
import { HealthStatus } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { settleWithin } from '../domain/settle-within.js';
import { pingDatabase } from '../store/ping-database.js';
import { errorResponses, noSecurity, REQUEST_ERRORS } from './schemas.js';
import type { AppDeps, ReadinessCheck } from './app-deps.js';

/** A readiness probe must answer quickly even when the database hangs. */
const READY_TIMEOUT_MS = 2000;

const answers = (check: ReadinessCheck): Promise<boolean> => settleWithin(check(), READY_TIMEOUT_MS, false);

/** The readiness check of the database: it answers a query. */
export function databaseAnswers(store: AppDeps['store']): ReadinessCheck {
  return () => pingDatabase(store.db).then(() => true);
}

/**
 * /healthz: the process is up. /readyz: it can serve, i.e. what it depends on answers: the
 * database, or what the composition root lists (with the ingest queue, its streams' quorum).
 */
export function healthRoutes(deps: Pick<AppDeps, 'store' | 'readiness'>): FastifyPluginAsync {
  const checks = deps.readiness;
  return async (app) => {
    app.get('/healthz', {
      schema: { operationId: 'getLiveness', summary: 'Liveness: the process is running', description: 'No authentication. Answers while the process runs, whatever its dependencies do; on the operations listener with --ops-port.', tags: ['operations'], security: noSecurity, response: { 200: HealthStatus, ...errorResponses(REQUEST_ERRORS) } },
      logLevel: 'warn',
    }, async () => ({ status: 'ok' }));

    app.get('/readyz', {
      schema: {
        operationId: 'getReadiness',
        security: noSecurity,
        summary: 'Readiness: the database answers (with an ingest queue, its streams have a quorum)',
        description: 'No authentication. 503 while a dependency does not answer within 2 s; on the operations listener with --ops-port.',
        tags: ['operations'],
        response: { 200: HealthStatus, ...errorResponses(REQUEST_ERRORS, 'unavailable') },
      },
      logLevel: 'warn',
    }, async () => {
      const ready = await Promise.all(checks.map(answers));
      if (!ready.every(Boolean)) throw new ServiceError(errors.unavailable);
      return { status: 'ready' };
    });
  };
}
