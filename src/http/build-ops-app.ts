import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { installErrorHandling } from './error-handler.js';
import { healthRoutes } from './health-routes.js';
import type { ServiceMetrics } from './metrics.js';
import { ErrorBody } from '@telematics/contract';

/**
 * The operations listener (`--ops-port`): /metrics, /healthz and /readyz for the monitoring
 * network only, so request volumes and the runtime's version stay off the API port. Health
 * probes stay on the API port too: load balancers probe where they send traffic.
 */
export async function buildOpsApp(deps: Pick<AppDeps, 'store' | 'logger' | 'readiness'>, metrics: ServiceMetrics): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: deps.logger, logController: new LogController({ disableRequestLogging: true }) });
  installErrorHandling(app);
  app.addSchema(ErrorBody);
  await app.register(healthRoutes(deps));
  metrics.serve(app);
  return app;
}
