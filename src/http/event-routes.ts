import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EventsPage, EventsQuery } from '@telematics/contract';
import { parseFeedQuery, readEventFeed } from '../events/read-event-feed.js';
import { principalOf } from './authenticate-hook.js';
import { AUTH_ERRORS, bearerSecurity, errorResponses } from './schemas.js';
import { compressResponses } from './compression.js';
import type { AppDeps } from './app-deps.js';

/** GET /events (the feed); registered behind the authentication hook. */
export function eventRoutes(deps: AppDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    await compressResponses(app);
    app.get('/events', {
      schema: {
        operationId: 'listEvents',
        summary: 'Read the events the application may see',
        description: 'Oldest first, from the oldest event kept or after a cursor; pass next_cursor as `after` to read on (also after an empty page). '
          + 'Command events of the application\'s own commands, vehicle and trip events of its company\'s vehicles, nothing outside its plan. See docs/events.md.',
        tags: ['events'],
        security: bearerSecurity,
        querystring: EventsQuery,
        response: {
          200: EventsPage,
          ...errorResponses(AUTH_ERRORS, 'eventCursorInvalid', 'unknownEventType', 'eventLimitInvalid', 'eventVinInvalid', 'invalidRequest', 'eventCursorExpired'),
        },
      },
    }, async (request) => {
      const { companyId, applicationId } = principalOf(request);
      return readEventFeed(deps.store, { companyId, applicationId }, parseFeedQuery(request.query));
    });
  };
}
