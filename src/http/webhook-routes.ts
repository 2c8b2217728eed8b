import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { WebhookDeps } from '../webhooks/webhook-deps.js';
import { attemptsRoute } from './webhooks/attempts-route.js';
import { endpointCollectionRoutes } from './webhooks/endpoint-collection-routes.js';
import { endpointRoutes } from './webhooks/endpoint-routes.js';
import { pingRoute } from './webhooks/ping-route.js';
import { recoverRoute } from './webhooks/recover-route.js';
import { rotateSecretRoute } from './webhooks/rotate-secret-route.js';
import { sendSpacing } from './webhooks/send-spacing.js';
import { verifyRoute } from './webhooks/verify-route.js';

/**
 * /webhook-endpoints: an application's receivers (docs/events.md "Webhooks"), one plugin per
 * sub-resource, registered behind the authentication hook in the order the interface document
 * lists them.
 */
export function webhookRoutes(deps: WebhookDeps, logger: FastifyBaseLogger): FastifyPluginAsync {
  return async (app) => {
    // Verify and test both send to the endpoint's URL: one spacing for the two.
    const spaced = sendSpacing();
    await app.register(endpointCollectionRoutes(deps, logger));
    await app.register(endpointRoutes(deps));
    await app.register(verifyRoute(deps, spaced));
    await app.register(rotateSecretRoute(deps));
    await app.register(pingRoute(deps, spaced));
    await app.register(recoverRoute(deps));
    await app.register(attemptsRoute(deps));
  };
}
