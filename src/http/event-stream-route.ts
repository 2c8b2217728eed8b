import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EventStreamQuery } from '@telematics/contract';
import { decodeJwt } from 'jose';
import { bearerToken } from '../auth/authenticate-bearer.js';
import { errors, ServiceError } from '../domain/errors.js';
import { encodeEventCursor } from '../domain/event-cursor.js';
import { EventStreamHub, type StreamedEvent } from '../events/event-stream-hub.js';
import { feedStart, parseCursor, parseFeedSelection } from '../events/read-event-feed.js';
import { lastEventPosition } from '../store/events-queries.js';
import { principalOf, stillAuthenticated } from './authenticate-hook.js';
import { OpenEventStreams, type OpenStream } from './open-event-streams.js';
import { AUTH_ERRORS, bearerSecurity, errorResponses } from './schemas.js';
import type { AppDeps, EventStreamSettings } from './app-deps.js';
import { markAnswer } from './request-accounting.js';

/** The stream's pacing; how many per application and how often they are rechecked are settings. */
export const EVENT_STREAM_TIMING: Omit<EventStreamSettings, 'perApplication' | 'recheckMs'> = Object.freeze({ pollMs: 1000, keepAliveMs: 15_000, maxDurationMs: 30 * 60_000 });
/** What EventSource waits before reconnecting, ms (the SSE `retry:` field). */
const RETRY_MS = 5000;

const frame = ({ cursor, event }: StreamedEvent): string => `id: ${cursor}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * GET /events/stream: Server-Sent Events of what GET /events would answer, as it commits.
 * Resumes after `Last-Event-ID` (or `after`), else starts now. Not compressed (a compressor
 * would hold events back), registered behind the authentication hook.
 */
export function eventStreamRoute(deps: AppDeps): FastifyPluginAsync {
  const settings = deps.eventStreams;
  return async (parent) => {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const hub = new EventStreamHub(deps.store, {
      pollMs: settings.pollMs,
      onError: (error) => deps.logger.error({ err: error }, 'event streams could not read the outbox; retrying'),
    });
    const open = new OpenEventStreams({
      perApplication: settings.perApplication,
      recheckMs: settings.recheckMs,
      stillAuthenticated: stillAuthenticated(deps, 'events:read'),
      onError: (error) => deps.logger.error({ err: error }, 'open event streams could not be checked again; retrying'),
    });
    // Streams never end by themselves: close them, or closing the server would wait for them.
    app.addHook('preClose', async () => {
      hub.close();
      open.endAll();
    });

    app.get('/events/stream', {
      schema: {
        operationId: 'streamEvents',
        summary: 'Follow the events the application may see, live (Server-Sent Events)',
        description: 'text/event-stream: `id:` a cursor, `event:` the type, `data:` the event as GET /events gives it; the first frame\'s `id:` is where the stream starts. '
          + `Resumes after Last-Event-ID (or \`after\`), else from now; a comment line every ${settings.keepAliveMs / 1000} s; `
          + `the stream ends after ${settings.maxDurationMs / 60_000} min (reconnect with Last-Event-ID), and within ${settings.recheckMs / 1000} s of the application being disabled or its secret rotated. See docs/events.md.`,
        tags: ['events'],
        security: bearerSecurity,
        querystring: EventStreamQuery,
        response: {
          200: { description: 'The stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errorResponses(AUTH_ERRORS, 'eventCursorInvalid', 'unknownEventType', 'eventVinInvalid', 'invalidRequest', 'eventCursorExpired', 'tooManyEventStreams'),
        },
      },
    }, async (request, reply) => {
      const { companyId, applicationId } = principalOf(request);
      const selection = parseFeedSelection(request.query);
      const lastEventId = request.headers['last-event-id'];
      const cursor = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : request.query.after;
      const position = cursor === undefined ? await lastEventPosition(deps.store) : await feedStart(deps.store, parseCursor(cursor));
      const stream: OpenStream = { applicationId, authorization: request.headers.authorization, end: (reason) => end(reason) };
      if (!open.add(stream)) throw new ServiceError(errors.tooManyEventStreams, { max: String(settings.perApplication) });

      reply.hijack();
      // A hijacked reply passes no onSend hook: it takes its id header and its request line itself.
      markAnswer(reply);
      const res = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        // nginx buffers responses unless told not to.
        'x-accel-buffering': 'no',
      });
      // The start as the first id: a client cut before any event arrives resumes from here, not from "now".
      res.write(`retry: ${RETRY_MS}\nid: ${encodeEventCursor(position)}\n: open\n\n`);
      request.log.info({ route: '/events/stream', applicationId }, 'event stream opened');

      let ended = false;
      // A keep-alive also says how far the stream has looked (an `id:` without data moves a
      // client's Last-Event-ID, fires no event): a filtered stream that stays quiet for days
      // does not resume from a cursor retention has passed.
      let told = position;
      const keepAlive = setInterval(() => {
        const seen = subscription.position();
        res.write(seen > told ? `id: ${encodeEventCursor(seen)}\n: keep-alive\n\n` : ': keep-alive\n\n');
        told = Math.max(told, seen);
      }, settings.keepAliveMs);
      // A stream is as good as the token that opened it: it ends when the token expires (the
      // client reconnects with a new one and Last-Event-ID), after the longest allowed, or when
      // a recheck refuses the token (open-event-streams.ts).
      const maxDuration = setTimeout(() => end(), Math.min(settings.maxDurationMs, tokenLifeLeftMs(request.headers.authorization, deps.clock.now())));
      const subscription = hub.subscribe({ companyId, applicationId }, selection, position, {
        send: (events) => res.write(events.map(frame).join('')),
        ready: () => new Promise((resolve) => res.once('drain', resolve)),
      });
      function end(reason?: 'revoked' | 'closing'): void {
        if (ended) return;
        ended = true;
        clearInterval(keepAlive);
        clearTimeout(maxDuration);
        subscription.end();
        open.remove(stream);
        // A comment says why to whoever reads the raw stream; the reconnect gets the 401 itself.
        if (!res.writableEnded) res.end(reason === 'revoked' ? ': revoked\n\n' : undefined);
        request.log.info({ route: '/events/stream', applicationId, ...(reason === 'revoked' ? { reason: 'the application was disabled or removed, or its credentials changed' } : {}) }, 'event stream closed');
      }
      res.once('close', () => end());
      // A client gone while the stream was being set up: its 'close' has fired already.
      if (res.destroyed || request.raw.socket.destroyed) end();
    });
  };
}

/** Milliseconds until the request's bearer token expires (it was verified: it has an `exp`). */
function tokenLifeLeftMs(authorization: string | undefined, now: number): number {
  const token = bearerToken(authorization);
  const exp = token === undefined ? undefined : decodeJwt(token).exp;
  return exp === undefined ? Number.POSITIVE_INFINITY : Math.max(0, exp * 1000 - now);
}
