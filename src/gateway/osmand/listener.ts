/**
 * The OsmAnd protocol of phone tracking apps (Traccar Client, OsmAnd) over HTTP (research note
 * §6): any method and path, the position in the query string (or a form body when the query is
 * empty, as older clients send it) or, from Traccar Client 9, a JSON body. An accepted position
 * is answered 200 with an empty body; a request that cannot be read 400; an id that is not
 * registered 400 in the query form and 404 in the JSON form, as Traccar answers; a position dated
 * in the future or before the data kept 400 (see `notStored`). Error bodies are `{"detail": …}`
 * like the API's, with fixed texts: nothing of the request (URL, body, headers) is echoed. OsmAnd
 * has no downlink: nothing is ever sent back.
 */
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { clientErrorHandlerOf } from '../../http/error-handler.js';
import type { GatewayMetrics } from '../gateway-metrics.js';
import type { TrackerConnectionCap } from '../tracker-connection-cap.js';
import type { IntakeGroups } from '../intake-groups.js';
import type { TrackerListener, TrackerListenerContext, TrackerListenSettings } from '../tracker-protocol-module.js';
import type { TrackerLookup } from '../tracker-lookup.js';
import { decodeOsmandJson, decodeOsmandQuery, type OsmandDecode } from './decode.js';
import { fixedDetail, notStored, UNREGISTERED_DEVICE } from './acks.js';

const LABELS = { protocol: 'osmand', transport: 'http' } as const;
/** A JSON batch of 500 locations is about 250 KB. */
const BODY_LIMIT = 512 * 1024;

function decode(request: FastifyRequest, now: number): { decoded: OsmandDecode; json: boolean } {
  const q = request.url.indexOf('?');
  const query = new URLSearchParams(q < 0 ? '' : request.url.slice(q + 1));
  const body = request.body;
  if (body !== null && typeof body === 'object') return { decoded: decodeOsmandJson(body, now), json: true };
  if (query.size > 0) return { decoded: decodeOsmandQuery(query, now), json: false };
  if (typeof body === 'string' && body !== '') return { decoded: decodeOsmandQuery(new URLSearchParams(body), now), json: false };
  return { decoded: { ok: false, status: 400, reason: 'the position is missing: send id, lat, lon and timestamp in the query string' }, json: false };
}

export function buildOsmandApp(lookup: TrackerLookup, intake: IntakeGroups, metrics: GatewayMetrics, cap: TrackerConnectionCap, logger: Logger): FastifyInstance {
  // Fastify's own info lines (its listen line) repeat the gateway's: warnings and worse only.
  const level = logger.levels.values[logger.level]! >= logger.levels.values.warn! ? logger.level : 'warn';
  const log = logger.child({ listener: 'osmand' }, { level }) as FastifyBaseLogger;
  const app = Fastify({
    loggerInstance: log, bodyLimit: BODY_LIMIT, logController: new LogController({ disableRequestLogging: true }), requestTimeout: 30_000,
    // What Node's parser refuses (headers over 16 KiB: 431), and a URL Fastify cannot decode: fixed texts too.
    clientErrorHandler: clientErrorHandlerOf(log),
    frameworkErrors: (_error, _request, reply) => {
      metrics.packets.inc({ ...LABELS, outcome: 'malformed' });
      return (reply as FastifyReply).code(400).send({ detail: fixedDetail(400) });
    },
  });
  // Form bodies and whatever else a phone app sends are read as text; JSON keeps Fastify's parser.
  app.removeContentTypeParser(['application/x-www-form-urlencoded', 'text/plain']);
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.server.on('connection', (socket: Socket) => {
    if (!cap.admit(socket, LABELS)) return;
    metrics.connections.inc(LABELS);
    metrics.open.inc(LABELS);
    socket.once('close', () => metrics.open.dec(LABELS));
  });
  // Fastify's messages can quote the request (a JSON parse error quotes the body): fixed texts by status.
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) logger.error({ err: error }, 'OsmAnd request failed');
    metrics.packets.inc({ ...LABELS, outcome: 'malformed' });
    return reply.code(status).send({ detail: fixedDetail(status) });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: fixedDetail(404) }));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { decoded, json } = decode(request, lookup.now());
    if (!decoded.ok) {
      metrics.packets.inc({ ...LABELS, outcome: 'malformed' });
      return reply.code(400).send({ detail: decoded.reason });
    }
    const vehicle = await lookup.find('osmand', decoded.deviceId);
    if (!vehicle) {
      metrics.unknownIds.inc(LABELS);
      metrics.packets.inc({ ...LABELS, outcome: 'unknown_id' });
      lookup.logRefusal('osmand', decoded.deviceId, request.ip);
      return reply.code(json ? 404 : 400).send({ detail: UNREGISTERED_DEVICE });
    }
    const records = decoded.records.map((r) => ({ vin: vehicle.vin, ts: r.ts, values: r.values, positionAccuracyM: r.positionAccuracyM }));
    let refused: number;
    try {
      refused = (await intake.deliver('osmand', decoded.deviceId, vehicle, records)).rejected.length;
    } catch (error) {
      metrics.packets.inc({ ...LABELS, outcome: 'store_failed' });
      logger.warn({ err: error, deviceId: decoded.deviceId }, 'OsmAnd position not stored');
      return reply.code(503).send({ detail: 'The position could not be stored; send it again.' });
    }
    metrics.records.inc(LABELS, records.length - refused);
    if (refused > 0) {
      metrics.packets.inc({ ...LABELS, outcome: 'date_out_of_range' });
      return reply.code(400).send({ detail: notStored(refused, records.length) });
    }
    metrics.packets.inc({ ...LABELS, outcome: 'accepted' });
    metrics.acks.inc(LABELS);
    return reply.code(200).send('');
  };
  app.route({ method: ['GET', 'POST', 'PUT'], url: '/*', handler });
  return app;
}

/** HTTP on `settings.port` (the module has no TLS listener); logs where it listens. */
export async function startOsmandListener(settings: TrackerListenSettings, context: TrackerListenerContext): Promise<TrackerListener> {
  const { host, lookup, intake, metrics, cap, logger } = context;
  const app = buildOsmandApp(lookup, intake, metrics, cap, logger);
  await app.listen({ host, port: settings.port });
  cap.guard(app.server, 'osmand');
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  logger.info({ host, port }, 'OsmAnd trackers: HTTP listening');
  return { port, tlsPort: undefined, close: () => app.close() };
}
