import type { FastifyPluginAsync } from 'fastify';
import { HealthStatus } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { pingDatabase } from '../store/ping-database.js';
import { errorResponse } from './schemas.js';
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
      schema: { summary: 'Liveness: the process is running', tags: ['operations'], response: { 200: HealthStatus } },
      logLevel: 'warn',
    }, async () => ({ status: 'ok' }));

    app.get('/readyz', {
      schema: {
        summary: 'Readiness: the database answers',
        tags: ['operations'],
        response: { 200: HealthStatus, 503: errorResponse('The database does not answer') },
      },
      logLevel: 'warn',
    }, async () => {
      if (!(await databaseAnswers(deps))) throw new ServiceError(errors.unavailable);
      return { status: 'ready' };
    });
  };
}
