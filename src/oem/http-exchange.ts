/**
 * One HTTP exchange with an automaker: undici's dispatcher over keep-alive connections, with
 * the answer gathered straight from its callbacks. Every command creation makes one exchange and
 * every poll another, and on SQLite this took a creation's CPU from ~256 to ~202 µs against
 * node:http's client (and fetch costs several times more): docs/decisions/0023.
 * No redirect is ever followed; the deadline covers waiting for a connection, the answer's
 * headers and its whole body; a body past `maxBytes` is abandoned. Every connection dials only
 * addresses the OEM's dial policy allows (the resolver checks each new connection, kept-alive
 * ones are not resolved again). User info in the URL is sent as Basic credentials, as node:http
 * did. One difference from node:http: an unsolicited `100 Continue` before the answer fails the
 * exchange (undici reads it as a malformed answer), which ends like an unreachable automaker.
 */
import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import type { DialPolicy } from '../domain/dial-policy.js';
import { guardedLookup, refusedLiteral } from './dial-guard.js';

export interface ExchangeRequest {
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

export interface ExchangeAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/** Why an exchange failed before an answer was complete: unreachable, timed out or too large. */
export class ExchangeFailed extends Error {
  constructor(message: string, readonly tooLarge = false) {
    super(message);
    this.name = 'ExchangeFailed';
  }
}

export interface ExchangeOptions {
  /** Which addresses may be dialled (from the OEM's base URL). */
  readonly dialPolicy: DialPolicy;
  /** Name resolution (dns.lookup unless a test gives another). */
  readonly lookup?: LookupFunction | undefined;
}

/** Connections kept per automaker origin, as node:http's agent allowed before. */
const MAX_CONNECTIONS = 128;

export class HttpExchange {
  readonly #agent: Agent;
  readonly #policy: DialPolicy;
  /** The last IP-literal host judged, and the verdict: an exchange serves one origin, so one entry. */
  #literal: { host: string; refused: string | undefined } | undefined;

  constructor(options: ExchangeOptions) {
    this.#policy = options.dialPolicy;
    // undici hands `connect` to net.connect / tls.connect, so each new connection resolves
    // through the guard. Its own idle timeouts stay above any deadline given here.
    this.#agent = new Agent({ connections: MAX_CONNECTIONS, connect: { lookup: guardedLookup(options.dialPolicy, options.lookup) } });
  }

  send(url: URL, request: ExchangeRequest): Promise<ExchangeAnswer> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.reject(new ExchangeFailed(`unsupported scheme ${url.protocol}`));
    // Node dials IP literals without calling the resolver, so they are judged here.
    if (this.#literal?.host !== url.hostname) this.#literal = { host: url.hostname, refused: refusedLiteral(this.#policy, url.hostname) };
    if (this.#literal.refused !== undefined) return Promise.reject(new ExchangeFailed(this.#literal.refused));
    let headers: Record<string, string>;
    try {
      headers = withUserInfo(url, request.headers);
    } catch {
      return Promise.reject(new ExchangeFailed('unreadable user info in the URL'));
    }
    return new Promise((resolve, reject) => {
      const handler = new AnswerGatherer(request, resolve, reject);
      this.#agent.dispatch({ origin: url.origin, path: `${url.pathname}${url.search}`, method: request.method, headers, body: request.body ?? null }, handler);
    });
  }

  close(): void {
    void this.#agent.destroy().catch(() => undefined);
  }
}

/**
 * `headers` with the URL's user info as Basic credentials, unless they hold an authorization
 * already: what node:http did with `http://user:password@host/`, which undici leaves out.
 */
function withUserInfo(url: URL, headers: Record<string, string>): Record<string, string> {
  if (url.username === '' && url.password === '') return headers;
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return headers;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { ...headers, authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

/**
 * One exchange's callbacks: the status, the body up to its cap, and the deadline. The deadline
 * may pass before the request has a connection (undici queues it), when there is nothing yet to
 * abort: the caller is answered at once and the request is refused when it would start.
 */
class AnswerGatherer implements Dispatcher.DispatchHandler {
  readonly #request: ExchangeRequest;
  readonly #resolve: (answer: ExchangeAnswer) => void;
  readonly #reject: (error: Error) => void;
  readonly #timer: NodeJS.Timeout;
  #controller: Dispatcher.DispatchController | undefined;
  #failure: ExchangeFailed | undefined;
  #settled = false;
  #status = 0;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(request: ExchangeRequest, resolve: (answer: ExchangeAnswer) => void, reject: (error: Error) => void) {
    this.#request = request;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(() => this.#abort(new ExchangeFailed(`no complete answer within ${request.timeoutMs} ms`)), request.timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // The deadline passed while this request waited for a connection. Throwing fails only the
    // request (undici drops it and keeps the connection); aborting would close the connection.
    if (this.#failure !== undefined) throw this.#failure;
    this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.#request.maxBytes) this.#abort(new ExchangeFailed('answer too large', true));
    else this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#resolve({ status: this.#status, body: Buffer.concat(this.#chunks, this.#size) });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error instanceof ExchangeFailed ? error : new ExchangeFailed(error.message));
  }

  /** Answers the caller with `failure` and stops the request (now, or when it starts). */
  #abort(failure: ExchangeFailed): void {
    this.#failure = failure;
    this.#fail(failure);
    this.#controller?.abort(failure);
  }

  #fail(failure: ExchangeFailed): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#chunks = [];
    this.#reject(failure);
  }
}
