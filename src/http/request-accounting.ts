/**
 * What every request leaves behind: its id in the X-Request-Id header, one observation in the
 * request histogram and, unless its route logs above info, the request line (request-line.ts).
 *
 * Why not an onRequest hook for the header and an onResponse hook for the rest, as before: Fastify
 * puts two listeners on every response when it has a logger or any onResponse hook, and on a
 * 2-core machine those listeners, the two hook runs and their closures cost GET /healthz about
 * 0.05 of a bare process's rate (bench/RESULTS.md, "Issue 22, fourteenth step"). Node announces
 * every finished response on the `http.server.response.finish` diagnostics channel, with no
 * listener on the response; so here:
 * - the start is stamped where Fastify asks for the request's id (`stampedRequestId`);
 * - one onSend hook, which every reply passes but a hijacked one (`markAnswer`), sets the header
 *   and leaves the reply on the response, where the channel's message finds it;
 * - one subscriber per application takes its own server's responses from the channel.
 * Fastify itself is given no logger (build-app.ts), so it sets no listeners of its own.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceMetrics } from './metrics.js';
import type { RequestLine } from './request-line.js';
import { requestIdFor } from './request-id.js';

const FINISHED = 'http.server.response.finish';
const STARTED = Symbol('request started');
const REPLY = Symbol('reply to account for');

type Stamped = IncomingMessage & { [STARTED]?: number };
type Marked = ServerResponse & { [REPLY]?: FastifyReply };
interface FinishedResponse { readonly response: Marked; readonly server: Server }

/** Fastify's `genReqId`: the request's id (request-id.ts), and its start for the time it took. */
export function stampedRequestId(req: IncomingMessage): string {
  (req as Stamped)[STARTED] = performance.now();
  return requestIdFor(req);
}

/** Each application's accounting, by its server: for the responses no server announces. */
const accountants = new WeakMap<Server, (reply: FastifyReply) => void>();

/**
 * What the onSend hook does, for a route that hijacks its reply (it passes no onSend): the id
 * header, and the reply left to be accounted for when its response finishes.
 */
export function markAnswer(reply: FastifyReply): void {
  reply.header('x-request-id', reply.request.id);
  // A connection's socket knows the server that accepted it.
  const socket = reply.request.raw.socket as (Socket & { server?: Server }) | null;
  if (socket?.server !== undefined) {
    (reply.raw as Marked)[REPLY] = reply;
    return;
  }
  // `app.inject` answers with responses no server announces: those are followed by a listener.
  const account = accountants.get(reply.server.server);
  if (account !== undefined) reply.raw.once('finish', () => account(reply));
}

export function installRequestAccounting(app: FastifyInstance, metrics: ServiceMetrics, requestLine: RequestLine): void {
  const account = (reply: FastifyReply): void => {
    const { request } = reply;
    const { url, config } = request.routeOptions;
    const started = (request.raw as Stamped)[STARTED];
    const ms = started === undefined ? 0 : performance.now() - started;
    metrics.observe(request.method, url, reply.statusCode, ms);
    // Routes counted in a periodic summary (ingest) log their successes at debug only.
    const summarized = reply.statusCode < 400 && config.requestLog === 'summary';
    const level = summarized ? 'debug' : 'info';
    // The route's own level (`logLevel: 'warn'` on probes) decides, as it does for request.log.
    if ((request.log as Logger).isLevelEnabled(level)) {
      requestLine(level, request.id, request.method, url ?? null, reply.statusCode, Math.round(ms * 10) / 10);
    }
  };
  const server = app.server;
  accountants.set(server, account);
  const finished = (message: unknown): void => {
    const { response, server: from } = message as FinishedResponse;
    if (from !== server) return;
    const reply = response[REPLY];
    if (reply !== undefined) account(reply);
  };
  subscribe(FINISHED, finished);
  app.addHook('onClose', (_instance, done) => {
    unsubscribe(FINISHED, finished);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    markAnswer(reply);
    done(null, payload);
  });
}
