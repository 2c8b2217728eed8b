/**
 * GET /console/api/alerts: the company's alert and geofence events, newest first, for the
 * console's Alerts screen (docs/console.md). Console-only: an application reads the same events
 * oldest first through GET /events, which is the public way; this one pages backwards so a
 * screen can show the latest at once and reach older ones on demand.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EventEnvelope } from '@telematics/contract';
import { parseAlertHistoryQuery, readAlertHistory } from '../../events/read-alert-history.js';
import type { AppDeps } from '../app-deps.js';
import { principalOf } from '../authenticate-hook.js';

const AlertsQuery = Type.Object({
  before: Type.Optional(Type.String()),
  types: Type.Optional(Type.String()),
  vin: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

const AlertsPage = Type.Object({
  data: Type.Array(EventEnvelope),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export function alertsRoute(deps: Pick<AppDeps, 'store'>): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/alerts', { schema: { querystring: AlertsQuery, response: { 200: AlertsPage } } }, async (request) => {
      const { companyId, applicationId } = principalOf(request);
      return readAlertHistory(deps.store, { companyId, applicationId }, parseAlertHistoryQuery(request.query));
    });
  };
}
