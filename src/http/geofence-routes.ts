/**
 * /geofences (D13): the token's company's fences. Bodies are validated by the domain's parser, not
 * the route schema, so every problem is answered with a detail naming it; the OpenAPI document
 * shows the typed body instead (documentedAs).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { GeofenceParams, GeofencesQuery } from '@telematics/contract';
import { Type } from 'typebox';
import type { GeofenceDeps } from '../geofences/geofence-deps.js';
import { listCompanyGeofences } from '../geofences/list-geofences.js';
import { createGeofence, readGeofence, removeGeofence, replaceGeofenceWith } from '../geofences/manage-geofences.js';
import { previewGeofence } from '../geofences/preview-request.js';
import { formatIsoWithOffset } from '../domain/time.js';
import { principalOf } from './authenticate-hook.js';
import { callerActor } from '../audit/record-audit.js';
import { previewAnswerSchema } from './preview-answer-schema.js';
import { AUTH_ERRORS, bearerSecurity, documentedAs, errorResponses, JSON_BODY_ERRORS, PATH_ERRORS } from './schemas.js';

const AnyObject = Type.Unsafe<Readonly<Record<string, unknown>>>({ type: 'object', description: 'name, geometry (GeoJSON Point, Polygon or LineString), radius_m or width_m, description' });
const GeofenceRef = Type.Ref('Geofence');
const GeofencesPage = Type.Object({
  data: Type.Array(GeofenceRef, { description: 'By name, then id' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null when there is none' }),
});
const PreviewBody = Type.Object({
  geofence: Type.Optional(Type.Ref('GeofenceBody')),
  geofence_id: Type.Optional(Type.String({ description: 'A saved fence instead of `geofence`' })),
  vins: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 1000, description: "Only these of the company's vehicles; all of them (up to 200) when absent" })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, description: 'How far back, default 7' })),
});
const PreviewAnswer = previewAnswerSchema('geofence_id', 'positions');
const ONE_GEOFENCE = [...AUTH_ERRORS, ...PATH_ERRORS, 'geofenceNotFound'] as const;
const documentedBody = { config: { swaggerTransform: documentedAs({ body: Type.Ref('GeofenceBody') }) } };
const KINDS = 'A `Point` with `radius_m` (a circle), a `Polygon` (holes allowed; at most 1,024 positions in all) or a `LineString` with `width_m` (a corridor, half the width each side); radius and width 10 to 50,000 m.';

export function geofenceRoutes(deps: GeofenceDeps): FastifyPluginAsync {
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const companyOf = (request: Parameters<typeof principalOf>[0]) => principalOf(request).companyId;
    const actorOf = (request: Parameters<typeof principalOf>[0]) => callerActor(principalOf(request));

    app.post('/geofences', {
      ...documentedBody,
      schema: {
        operationId: 'createGeofence', summary: 'Create a geofence',
        description: `A fence of the token's company. ${KINDS} A body that is not one of these, or a polygon whose rings cross, answers 400 naming the problem (docs/geofences.md).`,
        tags: ['geofences'], security: bearerSecurity, body: AnyObject,
        response: { 201: GeofenceRef, ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'geofenceInvalid', 'tooManyGeofences') },
      },
    }, async (request, reply) => reply.code(201).send(await createGeofence(deps, companyOf(request), request.body, actorOf(request))));

    app.get('/geofences', {
      schema: {
        operationId: 'listGeofences', summary: "List the company's geofences",
        description: 'By name, then id, a page at a time: pass next_cursor as `after` for the next page.',
        tags: ['geofences'], security: bearerSecurity, querystring: GeofencesQuery,
        response: { 200: GeofencesPage, ...errorResponses(AUTH_ERRORS, 'geofenceLimitInvalid', 'geofenceCursorInvalid', 'invalidRequest') },
      },
    }, async (request) => listCompanyGeofences(deps, companyOf(request), request.query));

    app.get('/geofences/:id', {
      schema: {
        operationId: 'getGeofence', summary: 'Read a geofence', description: "One of the company's fences; another company's reads as 404.",
        tags: ['geofences'], security: bearerSecurity, params: GeofenceParams, response: { 200: GeofenceRef, ...errorResponses(ONE_GEOFENCE) },
      },
    }, async (request) => readGeofence(deps, companyOf(request), request.params.id));

    app.put('/geofences/:id', {
      ...documentedBody,
      schema: {
        operationId: 'replaceGeofence', summary: 'Replace a geofence',
        description: `The same body as POST /geofences replaces the fence whole (a description left out is removed); its id and creation stay. ${KINDS}`,
        tags: ['geofences'], security: bearerSecurity, params: GeofenceParams, body: AnyObject,
        response: { 200: GeofenceRef, ...errorResponses(JSON_BODY_ERRORS, ONE_GEOFENCE, 'geofenceInvalid') },
      },
    }, async (request) => replaceGeofenceWith(deps, companyOf(request), request.params.id, request.body, actorOf(request)));

    app.post('/geofences/preview', {
      config: { swaggerTransform: documentedAs({ body: PreviewBody }) },
      schema: {
        operationId: 'previewGeofence', summary: 'Try a geofence on recorded positions',
        description: 'The geofence events a fence would have fired over the company\'s recorded positions of the last `days` (1 to 7, default 7), judged by the same rules and code as the live evaluator, from each vehicle outside: a fence not yet saved (`geofence`, the body of POST /geofences; its events have `geofence_id` null), or a saved one (`geofence_id`). Nothing is written. At most 200 vehicles (by VIN) and 2,000,000 positions: past either, `truncated`.',
        tags: ['geofences'], security: bearerSecurity, body: AnyObject,
        response: { 200: PreviewAnswer, ...errorResponses(JSON_BODY_ERRORS, AUTH_ERRORS, 'geofenceInvalid', 'geofenceNotFound') },
      },
    }, async (request) => {
      const preview = await previewGeofence(deps, companyOf(request), request.body);
      return { ...preview, from: formatIsoWithOffset(preview.from), to: formatIsoWithOffset(preview.to) };
    });

    app.delete('/geofences/:id', {
      schema: {
        operationId: 'deleteGeofence', summary: 'Delete a geofence', description: 'Vehicles are no longer watched against it.',
        tags: ['geofences'], security: bearerSecurity, params: GeofenceParams, response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(ONE_GEOFENCE) },
      },
    }, async (request, reply) => {
      await removeGeofence(deps, companyOf(request), request.params.id, actorOf(request));
      return reply.code(204).send(null);
    });
  };
}
