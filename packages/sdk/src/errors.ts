/**
 * Every failure the client reports is a TelematicsError: an answer of the service (status, its
 * exact `detail`, the stable code of that text in the service's catalogue, the request id,
 * Retry-After), or something that kept an answer from arriving (ConnectionError, TimeoutError).
 * Subclasses by kind, so callers can `instanceof` what they handle and let the rest through.
 */
import { ERRORS } from './generated/catalogue.js';

/** A stable code from the service's error catalogue, e.g. `TLM_VIN_NOT_FOUND`. */
export type ErrorCode = (typeof ERRORS)[number]['code'];

export interface ErrorInit {
  readonly status?: number | undefined;
  readonly detail: string;
  readonly requestId?: string | undefined;
  readonly retryAfter?: number | undefined;
  readonly headers?: Headers | undefined;
  readonly cause?: unknown;
}

export class TelematicsError extends Error {
  /** The HTTP status; undefined when no answer came (connection, timeout, webhook verification). */
  readonly status: number | undefined;
  /** The service's `detail` text, exactly as sent, or what went wrong on the way. */
  readonly detail: string;
  /** The catalogue code of `detail`; undefined when the text is not one of the catalogue's. */
  readonly code: ErrorCode | undefined;
  /** The service's X-Request-Id: quote it when asking the operator about this request. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (Retry-After), when it said. */
  readonly retryAfter: number | undefined;
  readonly headers: Headers | undefined;
  /**
   * On errors of command creation: the Idempotency-Key the request was sent with. To try again
   * later without risking a second command, pass it back as `idempotencyKey`.
   */
  idempotencyKey: string | undefined;

  constructor(init: ErrorInit) {
    super(init.detail, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.detail = init.detail;
    this.code = init.status === undefined ? undefined : errorCodeOf(init.status, init.detail);
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.headers = init.headers;
    this.idempotencyKey = undefined;
  }
}

/** 400, and the other answers to a request the service could not read or wait for (406, 408, 413, 414, 415, 431). */
export class BadRequestError extends TelematicsError {}
/** 401: missing, wrong or expired credentials or token. */
export class AuthenticationError extends TelematicsError {}
/** 403: a wrong signature, or another application's command. */
export class PermissionError extends TelematicsError {}
/** 404: an unknown or not-permitted VIN, command, datapoint, or no data in the window. */
export class NotFoundError extends TelematicsError {}
/** 409: a confirmation already used, a request with the same Idempotency-Key still running, … */
export class ConflictError extends TelematicsError {}
/** 410: an event cursor older than what the service keeps: start again without one. */
export class GoneError extends TelematicsError {}
/** 422: an Idempotency-Key reused with a different request. */
export class UnprocessableEntityError extends TelematicsError {}
/** 429: too many requests; `retryAfter` says how long to wait. */
export class RateLimitError extends TelematicsError {}
/** 5xx. */
export class ServerError extends TelematicsError {}
/** 502 from command creation: the command exists (`command.id`) but the automaker would not start it. */
export class CommandStartError extends ServerError {
  constructor(init: ErrorInit, readonly command: { readonly id: string; readonly vin: string; readonly command: string; readonly status: 'Error'; readonly detail: string }) {
    super(init);
  }
}
/** The `confirm` callback of `commands.send` declined: the command was not executed. */
export class ConfirmationDeclinedError extends TelematicsError {
  constructor(readonly confirmation: { readonly id: string; readonly vin: string; readonly command: string; readonly code: string; readonly message: string }) {
    super({ detail: `${confirmation.command} for ${confirmation.vin} was not confirmed: nothing was sent to the vehicle` });
  }
}
/** No answer: the connection failed or was cut. Requests safe to repeat were retried first. */
export class ConnectionError extends TelematicsError {}
/** No answer in time, or a command still Pending when `wait` gave up. */
export class TimeoutError extends TelematicsError {}
/** A webhook whose signature, timestamp or body does not verify: answer it 4xx and drop it. */
export class WebhookVerificationError extends TelematicsError {}

/** The errors class for an HTTP status. */
export function errorClassFor(status: number): typeof TelematicsError {
  switch (status) {
    case 400: case 406: case 408: case 413: case 414: case 415: case 431: return BadRequestError;
    case 401: return AuthenticationError;
    case 403: return PermissionError;
    case 404: return NotFoundError;
    case 409: return ConflictError;
    case 410: return GoneError;
    case 422: return UnprocessableEntityError;
    case 429: return RateLimitError;
    default: return status >= 500 ? ServerError : TelematicsError;
  }
}

type Matcher = { readonly code: ErrorCode; readonly status: number; readonly test: (detail: string) => boolean };

let matchers: readonly Matcher[] | undefined;

/** `{name}` placeholders match any text; everything else literally. */
function matcherOf(entry: (typeof ERRORS)[number]): Matcher {
  if (!entry.text.includes('{')) return { code: entry.code, status: entry.status, test: (detail) => detail === entry.text };
  const pattern = entry.text.split(/\{[a-z_]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+');
  const regex = new RegExp(`^${pattern}$`, 's');
  return { code: entry.code, status: entry.status, test: (detail) => regex.test(detail) };
}

/** The catalogue code of an answer's detail text under its status. */
export function errorCodeOf(status: number, detail: string): ErrorCode | undefined {
  // Exact texts first: a template such as 'Invalid {field}: use {formats}.' also fits some exact texts.
  matchers ??= [...ERRORS.filter((e) => !e.text.includes('{')), ...ERRORS.filter((e) => e.text.includes('{'))].map(matcherOf);
  return matchers.find((m) => m.status === status && m.test(detail))?.code;
}
