/**
 * The one path from a thrown error to a response. Catalogue errors answer with their status and
 * exact text; framework errors are mapped to catalogue entries; anything else is logged with the
 * request id and answered with a fixed 500 body that reveals nothing.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, ServiceError } from '../domain/errors.js';
import { classifyStoreError } from '../store/classify-error.js';

function fromFrameworkError(error: FastifyError, request: FastifyRequest): ServiceError | undefined {
  if (error.validation && error.validation.length > 0) {
    const first = error.validation[0]!;
    const where = `${error.validationContext ?? 'request'}${first.instancePath ? first.instancePath.replace(/\//g, '.') : ''}`;
    return new ServiceError(errors.invalidRequest, { reason: `${where} ${first.message ?? 'is invalid'}` });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return new ServiceError(errors.bodyTooLarge);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const expected = (request.routeOptions.config as { contentType?: string } | undefined)?.contentType ?? 'application/json';
      return new ServiceError(errors.unsupportedMediaType, { expected });
    }
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return new ServiceError(errors.malformedJson);
    case 'FST_ERR_MAX_PARAM_LENGTH': return new ServiceError(errors.urlTooLong);
    case 'FST_ERR_BAD_URL': return new ServiceError(errors.invalidRequest, { reason: 'the URL is malformed' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return new ServiceError(errors.invalidRequest, { reason: 'the JSON body is empty' });
    default: break;
  }
  // A database that cannot work for now is 503 with Retry-After (sendError), not 500; input the
  // database refused is still the caller's input, so 400 rather than 500.
  const storeError = classifyStoreError(error);
  if (storeError === 'unavailable') return new ServiceError(errors.unavailable);
  if (storeError === 'bad-input') {
    request.log.warn({ err: error }, 'input refused by the database');
    return new ServiceError(errors.invalidRequest, { reason: 'a value in the request cannot be used' });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ServiceError(errors.invalidRequest, { reason: 'the request could not be read' });
  }
  return undefined;
}

/** The request's own connection is gone before its body was complete. */
const clientWentAway = (request: FastifyRequest): boolean => !request.raw.complete && (request.raw.destroyed || request.raw.socket?.destroyed === true);

/**
 * The error is the body stream's own (Node's `aborted`, or a body shorter than announced), not a
 * database error that happened to come while the client was leaving: that one is still an outage.
 */
const isBodyCutOff = (error: FastifyError): boolean =>
  (error.code === 'ECONNRESET' && error.message === 'aborted') || error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH';

export function sendError(reply: FastifyReply, error: ServiceError): FastifyReply {
  // RFC 6750 §3: a bare challenge when no bearer token was presented, `invalid_token` when one was
  // refused; bad client credentials at /token are not a bearer failure and get no challenge.
  if (error.entry === errors.notAuthenticated) reply.header('www-authenticate', 'Bearer');
  else if (error.entry === errors.invalidToken) reply.header('www-authenticate', 'Bearer error="invalid_token"');
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  else if (error.status === 503) reply.header('retry-after', '5');
  return reply.code(error.status).send({ detail: error.detail });
}

/** Maps any error to a response; also serves Fastify's `frameworkErrors` (bad URL, over-long parameter). */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A client that hangs up mid-upload makes Node fail the body stream with ECONNRESET, the same
  // code a lost database connection has: anyone could raise false outage alerts by dropping
  // uploads. Nobody will read this answer; it is logged as what it is.
  if (isBodyCutOff(error) && clientWentAway(request)) {
    request.log.info({ method: request.method, route: request.routeOptions.url ?? null }, 'client closed the connection before its request was complete');
    return sendError(reply, new ServiceError(errors.invalidRequest, { reason: 'the client closed the connection' }));
  }
  const known = error instanceof ServiceError ? error : fromFrameworkError(error, request);
  if (known) {
    if (known.status >= 500) request.log.warn({ err: error }, 'request failed: %s', known.detail);
    return sendError(reply, known);
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendError(reply, new ServiceError(errors.internal));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((_request, reply) => sendError(reply, new ServiceError(errors.notFound)));
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a CR or NUL in a header, two
 * Content-Lengths, Content-Length with Transfer-Encoding, headers over 16 KiB, a request that
 * never completes): the same `{"detail": …}` body as every other error, then the connection closes.
 */
export function clientErrorHandlerOf(logger: FastifyBaseLogger): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const entry = error.code === 'HPE_HEADER_OVERFLOW' ? errors.headersTooLarge
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? errors.requestTimeout
        : errors.malformedHttp;
    logger.debug({ code: error.code }, 'malformed HTTP request refused');
    if (socket.writable) {
      const body = JSON.stringify({ detail: entry.text });
      socket.write(`HTTP/1.1 ${entry.status} ${STATUS_CODES[entry.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy();
  };
}
