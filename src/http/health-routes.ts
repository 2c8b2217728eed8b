import type { FastifyPluginAsync } from 'fastify';
import { HealthStatus } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { pingDatabase } from '../store/ping-database.js';
import { errorResponses, noSecurity } from './schemas.js';
import type { AppDeps } from './app-deps.js';

/** A readiness probe must answer quickly even when the database hangs. */
const READY_TIMEOUT_MS = 2000;

async function databaseAnswers(deps: Pick<AppDeps, 'store'>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS); });
  const probe = pingDatabase(deps.store.db).then(() => true, () => false);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** /healthz: the process is up. /readyz: it can serve, i.e. the database answers. */
export function healthRoutes(deps: Pick<AppDeps, 'store'>): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', {
      schema: { operationId: 'getLiveness', summary: 'Liveness: the process is running', tags: ['operations'], security: noSecurity, response: { 200: HealthStatus } },
      logLevel: 'warn',
    }, async () => ({ status: 'ok' }));

    app.get('/readyz', {
      schema: {
        operationId: 'getReadiness',
        security: noSecurity,
        summary: 'Readiness: the database answers',
        tags: ['operations'],
        response: { 200: HealthStatus, ...errorResponses('unavailable') },
      },
      logLevel: 'warn',
    }, async () => {
      if (!(await databaseAnswers(deps))) throw new ServiceError(errors.unavailable);
      return { status: 'ready' };
    });
  };
}
