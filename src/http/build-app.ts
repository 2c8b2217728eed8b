import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { authenticateHook } from './authenticate-hook.js';
import { declareRouteScopes } from './scope-hook.js';
import { clientErrorHandlerOf, handleError, installErrorHandling } from './error-handler.js';
import { healthRoutes } from './health-routes.js';
import { installOpenApi } from './openapi.js';
import { installRequestAccounting, markAnswer, stampedRequestId } from './request-accounting.js';
import { refuseUnknownLogLevels, requestLoggersOf } from './request-logger.js';
import { requestLineWriter } from './request-line.js';
import { tokenRoute } from './token-route.js';
import { vehicleRoutes } from './vehicle-routes.js';
import { vehicleDataRoute } from './vehicle-data-route.js';
import { ingestRoute } from './ingest-route.js';
import { vehicleTripsRoute } from './vehicle-trips-route.js';
import { commandRoutes } from './command-routes.js';
import { auditRoutes } from './audit-routes.js';
import { eventRoutes } from './event-routes.js';
import { eventStreamRoute } from './event-stream-route.js';
import { webhookRoutes } from './webhook-routes.js';
import { geofenceRoutes } from './geofence-routes.js';
import { alertRuleRoutes } from './alert-rule-routes.js';
import { shareLinkRoutes } from './share-link-routes.js';
import type { AppDeps } from './app-deps.js';
import { requestLimits } from './rate-limits.js';
import { capConnectionsPerAddress } from './connection-cap.js';
import { IngestSummary } from './ingest-summary.js';
import { proxyTrust } from '../domain/trust-proxy.js';
import { ErrorBody, Geofence, Vehicle } from '@telematics/contract';
import { consolePlugin } from './console/console-plugin.js';
import { sharePageRoutes } from './console/share-page-routes.js';

/** Request headers are at most 16 KiB: a client still sending them after this is not a client. */
const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past their timeouts (its default, 30 s, would let them run that much over). */
const TIMEOUT_CHECK_MS = 1000;

/**
 * The HTTP application, without listening: tests and `serve` both build it here.
 * Request logging is one line per completed request (method, route, status, time, request id),
 * but for successful ingests, summed in one line a minute (ingest-summary.ts); headers and bodies
 * are never logged, so tokens and secrets cannot reach the logs.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const trust = proxyTrust(deps.trustProxy);
  const app = Fastify({
    // No logger for Fastify itself: with one, it adds two listeners to every response, the cost
    // request-accounting.ts avoids. Each request's logger (request.log, reply.log) is made from
    // ours here, the client errors below log through ours and `serve` writes the listening lines
    // (roles/start-api.ts). What would go to the application's own logger (`app.log`) is dropped:
    // none of ours logs there; @fastify/static does, to warn of a folder that does not exist.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: stampedRequestId,
    childLoggerFactory: requestLoggersOf(deps.logger as Logger),
    bodyLimit: deps.bodyLimit,
    // Path parameters are VINs and UUIDs. Longer ones still reach their route, which answers its
    // own not-found text after authentication; only absurd ones get 414 before routing.
    routerOptions: { maxParamLength: 8192 },
    // A bad URL's reply is made before routing, with no hooks: it takes its id header and its
    // request line itself.
    frameworkErrors: (error, request, reply) => {
      markAnswer(reply);
      return handleError(error, request, reply);
    },
    clientErrorHandler: clientErrorHandlerOf(deps.logger),
    // Slow requests (a body trickled a byte at a time) end with 408 instead of holding a socket.
    requestTimeout: deps.requestTimeoutMs,
    http: { headersTimeout: Math.min(HEADERS_TIMEOUT_MS, deps.requestTimeoutMs), connectionsCheckingInterval: TIMEOUT_CHECK_MS },
    // A hop count or the proxies' ranges, never "everything": the client address is then the hop
    // just before our own proxies, which the client cannot write.
    trustProxy: deps.trustProxy ? trust : false,
    // Types are not coerced: a VIN sent as a number is an error, not the string "123".
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
  });

  const ingestSummary = deps.ingestSummary ?? new IngestSummary(deps.logger);
  if (deps.ingestSummary === undefined) app.addHook('onClose', ingestSummary.start());
  // The request line holds only the fields below, none of them a secret: it skips the redaction
  // pass every other line gets, which cost more than the rest of the line (5.1 µs against 1.4 µs
  // a line, and GET /vehicle/{vin} ran at 0.65 of its speed with request lines on; docs/decisions/0012),
  // and is put together without pino's generic line building (request-line.ts).
  const requestLine = requestLineWriter(deps.logger.child({}, { redact: { paths: [] } }) as Logger);
  const metrics = deps.metrics;
  installRequestAccounting(app, metrics, requestLine, deps.logger);
  app.addHook('onRoute', refuseUnknownLogLevels(deps.logger as Logger));

  // Closing: idle keep-alive connections are closed by Fastify, but one still busy with a request
  // would, once answered, stay open for the keep-alive timeout (72 s) and hold shutdown with it.
  // From now on a connection closes as soon as it goes idle.
  app.addHook('preClose', async () => {
    app.server.keepAliveTimeout = 1;
  });

  if (deps.connectionsPerAddress) capConnectionsPerAddress(app.server, deps.connectionsPerAddress, (address) => trust(address, 0), deps.logger);

  installErrorHandling(app);
  // A JSON API: a text/plain body is a wrong content type (415), not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.addSchema(ErrorBody);
  app.addSchema(Vehicle);
  app.addSchema(Geofence);
  // The interface's own description is public by choice (`--no-docs` turns it off); it holds
  // nothing the interface document does not.
  if (deps.docs) await installOpenApi(app);
  if (deps.metricsOnApiPort) metrics.serve(app);

  const limits = requestLimits(deps.rateLimits, deps.sharedRateStore, (change, error) => {
    if (change === 'down') deps.logger.warn({ err: error }, 'shared rate limits unreachable: counting in this process until they answer');
    else deps.logger.info('shared rate limits answer again');
  });
  await app.register(healthRoutes(deps));
  await app.register(tokenRoute(deps, limits));
  await app.register(ingestRoute(deps, ingestSummary));
  await app.register(async (protectedScope) => {
    protectedScope.addHook('onRequest', authenticateHook(deps));
    declareRouteScopes(protectedScope);
    await protectedScope.register(vehicleRoutes(deps));
    await protectedScope.register(vehicleDataRoute(deps));
    await protectedScope.register(vehicleTripsRoute(deps));
    await protectedScope.register(commandRoutes(deps, deps.clock, limits));
    await protectedScope.register(eventRoutes(deps));
    await protectedScope.register(auditRoutes(deps));
    await protectedScope.register(eventStreamRoute(deps));
    await protectedScope.register(webhookRoutes(deps.webhooks, deps.logger));
    await protectedScope.register(geofenceRoutes({ store: deps.store, clock: deps.clock, settings: deps.geofences }));
    await protectedScope.register(alertRuleRoutes(deps));
    await protectedScope.register(shareLinkRoutes(deps));
  });
  if (deps.console) await app.register(consolePlugin(deps, deps.console, limits));
  await app.register(sharePageRoutes(deps, deps.console, limits));
  return app;
}
