/**
 * One request to the service, the way every resource sends it: bearer token, timeout, retries of
 * what is safe to repeat (retry-policy.ts), one fresh token and replay when the service refuses a
 * token it issued, and every failure as a TelematicsError.
 */
import { deadline, sleep } from './abort.js';
import { CommandStartError, ConnectionError, errorClassFor, ServerError, TelematicsError, TimeoutError } from './errors.js';
import {
  backoffMs, IN_FLIGHT_PATIENCE_MS, MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retriesConnectionFailure, retriesStatus, type RetryKind,
} from './retry-policy.js';

/** The part of `fetch` the client uses; pass your own to add logging, a proxy agent or a test double. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface TransportSettings {
  readonly baseUrl: string;
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  /** Undefined for calls that carry no token (POST /token itself). */
  readonly tokens?: { get(): Promise<string>; invalidate(token: string): void };
}

export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly retry: RetryKind;
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

export interface Answer<T> {
  readonly data: T;
  readonly status: number;
  readonly headers: Headers;
}

export class Transport {
  constructor(private readonly settings: TransportSettings) {}

  /** Sends `call` and answers its JSON body (undefined for 204). */
  async json<T>(call: Call): Promise<Answer<T>> {
    const { response, text } = await this.#send(call, true);
    let data: unknown;
    try {
      data = text === '' ? undefined : JSON.parse(text);
    } catch (cause) {
      throw new ServerError({ status: response.status, detail: `${call.method} ${call.path}: the answer is not JSON`, headers: response.headers, cause, requestId: response.headers.get('x-request-id') ?? undefined });
    }
    return { data: data as T, status: response.status, headers: response.headers };
  }

  /**
   * Sends `call` and answers the response with its body unread (a stream). The timeout covers
   * the wait for the headers only; the caller's signal ends the body too.
   */
  async open(call: Call): Promise<{ response: Response; release: () => void }> {
    const { response, release } = await this.#send(call, false);
    return { response, release };
  }

  async #send(call: Call, readBody: boolean): Promise<{ response: Response; text: string; release: () => void }> {
    const { baseUrl, maxRetries, tokens } = this.settings;
    const timeoutMs = call.timeoutMs ?? this.settings.timeoutMs;
    const url = baseUrl + call.path + queryString(call.query);
    let attempt = 0;
    let replayedForToken = false;
    const startedAt = Date.now();
    for (;;) {
      const token = tokens === undefined ? undefined : await untilAborted(tokens.get(), call.signal);
      const clock = deadline(call.signal, timeoutMs);
      let response: Response;
      let text = '';
      try {
        response = await this.settings.fetch(url, { method: call.method, headers: headersOf(call, token), body: bodyOf(call), signal: clock.signal });
        if (readBody || !response.ok) text = await response.text();
      } catch (cause) {
        clock.release();
        if (call.signal?.aborted) throw call.signal.reason;
        const failure = clock.timedOut()
          ? new TimeoutError({ detail: `${call.method} ${call.path}: no answer within ${timeoutMs} ms`, cause })
          : new ConnectionError({ detail: `${call.method} ${call.path}: ${describe(cause)}`, cause });
        if (!retriesConnectionFailure(call.retry) || attempt >= maxRetries) throw failure;
        await sleep(backoffMs(attempt), call.signal);
        attempt += 1;
        continue;
      }
      if (readBody || !response.ok) clock.release();
      else clock.stopClock();
      if (response.ok) return { response, text, release: clock.release };

      const error = errorOf(response, text);
      if (token !== undefined && error.code === 'TLM_INVALID_TOKEN' && !replayedForToken) {
        // Refused although we thought it valid (revoked, keys rotated): one fresh token, one replay.
        tokens?.invalidate(token);
        replayedForToken = true;
        continue;
      }
      const waitMs = error.retryAfter === undefined ? backoffMs(attempt) : error.retryAfter * 1000;
      if (error.code === 'TLM_IDEMPOTENCY_KEY_IN_FLIGHT' && call.retry === 'keyed') {
        // The first request with this key is still running: wait for its answer, not counted as a retry.
        if (Date.now() + waitMs - startedAt > IN_FLIGHT_PATIENCE_MS) throw error;
        await sleep(waitMs, call.signal);
        continue;
      }
      const waitable = error.retryAfter === undefined || error.retryAfter <= MAX_RETRY_AFTER_SECONDS;
      if (!retriesStatus(call.retry, response.status, error.code) || attempt >= maxRetries || !waitable) throw error;
      await sleep(waitMs, call.signal);
      attempt += 1;
    }
  }
}

/** `promise`, or the signal's reason as soon as it aborts (the token fetch is shared: it goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function queryString(query: Call['query']): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function headersOf(call: Call, token: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (call.json !== undefined) headers['content-type'] = 'application/json';
  if (call.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  return headers;
}

function bodyOf(call: Call): string | undefined {
  if (call.json !== undefined) return JSON.stringify(call.json);
  if (call.form !== undefined) return new URLSearchParams(call.form as Record<string, string>).toString();
  return undefined;
}

const describe = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause);
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return cause.message + inner;
};

/** The error an answer stands for: its `detail`, the catalogue code, request id and Retry-After. */
export function errorOf(response: Response, text: string): TelematicsError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const detail = isRecord(body) && typeof body.detail === 'string' ? body.detail : `HTTP ${response.status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`;
  const init = {
    status: response.status, detail, headers: response.headers,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
  };
  if (response.status === 502 && isRecord(body) && body.status === 'Error' && typeof body.id === 'string') {
    return new CommandStartError(init, body as unknown as CommandStartError['command']);
  }
  const Kind = errorClassFor(response.status);
  return new Kind(init);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
