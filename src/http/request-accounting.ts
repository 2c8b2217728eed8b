/**
 * What every request leaves behind: its id in the X-Request-Id header, one observation in the
 * request histogram and, unless its route logs above info, the request line (request-line.ts).
 *
 * Why not an onRequest hook for the header and an onResponse hook for the rest, as before: Fastify
 * adds a 'finish' and an 'error' listener to every response when it has a logger or any onResponse
 * hook. On a 2-core machine those listeners cost GET /healthz 0.05–0.07 of a bare process's rate,
 * and 0.13–0.21 together with the hooks and the request id
 * (docs/decisions/0026-request-accounting-without-listeners.md). Node announces every response that finishes on the
 * `http.server.response.finish` diagnostics channel, from the listener it adds itself; so here:
 * - the start is stamped where Fastify asks for the request's id (`stampedRequestId`);
 * - one onSend hook sets the header and leaves the reply on the response, where the channel's
 *   message finds it (`markAnswer`; a route that hijacks its reply, which passes no onSend, and
 *   Fastify's framework errors, whose replies have no hooks, call it themselves);
 * - one subscriber in the process hands each marked reply to its application's accounting.
 * Fastify itself is given no logger (build-app.ts), so it adds no listeners of its own.
 * Responses that never finish (the client went away first) are not accounted for, as before.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceMetrics } from './metrics.js';
import type { RequestLine } from './request-line.js';
import { requestIdFor } from './request-id.js';

const STARTED = Symbol('request started');
const REPLY = Symbol('reply to account for');

type Stamped = IncomingMessage & { [STARTED]?: number };
type Marked = ServerResponse & { [REPLY]?: FastifyReply };
interface FinishedResponse { readonly response: Marked }

/**
 * Each application's accounting, by its server (also the server of a reply made on one of
 * Fastify's extra listeners, as with `localhost` resolving to two addresses).
 */
const accountants = new WeakMap<Server, (reply: FastifyReply) => void>();

let subscribed = false;
function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('http.server.response.finish', (message) => {
    const reply = (message as FinishedResponse).response[REPLY];
    if (reply !== undefined) accountants.get(reply.server.server)?.(reply);
  });
}

/** Fastify's `genReqId`: the request's id (request-id.ts), and its start for the time it took. */
export function stampedRequestId(req: IncomingMessage): string {
  (req as Stamped)[STARTED] = performance.now();
  return requestIdFor(req);
}

/** The id header, and the reply left to be accounted for once its response has finished. */
export function markAnswer(reply: FastifyReply): void {
  reply.header('x-request-id', reply.request.id);
  const response = reply.raw as Marked;
  // A reply sent again (an onSend hook failed, its error is sent) is already marked.
  if (response[REPLY] !== undefined) return;
  response[REPLY] = reply;
  // A connection's socket knows the server that accepted it; `app.inject` answers with responses
  // no server announces, and those are followed by a listener.
  const socket = reply.request.raw.socket as (Socket & { server?: Server }) | null;
  if (socket?.server === undefined) {
    const account = accountants.get(reply.server.server);
    if (account !== undefined) reply.raw.once('finish', () => account(reply));
  }
}

export function installRequestAccounting(app: FastifyInstance, metrics: ServiceMetrics, requestLine: RequestLine, logger: FastifyBaseLogger): void {
  const account = (reply: FastifyReply): void => {
    // A throw here would reach the channel, which rethrows it where nothing catches it.
    try {
      const { request } = reply;
      const { url, config } = request.routeOptions;
      const started = (request.raw as Stamped)[STARTED];
      const ms = started === undefined ? 0 : performance.now() - started;
      metrics.observe(request.method, url, reply.statusCode, ms);
      // Routes counted in a periodic summary (ingest) log their successes at debug only.
      const summarized = reply.statusCode < 400 && config?.requestLog === 'summary';
      const level = summarized ? 'debug' : 'info';
      // The route's own level (`logLevel: 'warn'` on probes) decides, as it does for request.log.
      if ((request.log as Logger).isLevelEnabled(level)) {
        requestLine(level, request.id, request.method, url ?? null, reply.statusCode, Math.round(ms * 10) / 10);
      }
    } catch (error) {
      logger.error({ err: error }, 'a request could not be accounted for');
    }
  };
  const server = app.server;
  accountants.set(server, account);
  subscribeOnce();
  app.addHook('onClose', (_instance, done) => {
    accountants.delete(server);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    markAnswer(reply);
    done(null, payload);
  });
}
