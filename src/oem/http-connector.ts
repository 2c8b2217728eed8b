/**
 * The HTTP connector: `POST {base}/commands {id, vin, command}` with `Idempotency-Key: <id>`
 * answers `{status_url}` (the same one again for a repeat with the same key);
 * `GET status_url` answers `{status: "pending" | "success" | "error", result?, error?}`.
 * A status URL is fetched only when it has the same scheme, host and port as the configured base
 * URL (a hostile automaker answer cannot make us fetch elsewhere), and every connection dials only
 * the kinds of address the base URL is on (a rebinding automaker DNS cannot point inside either),
 * without following redirects, with a timeout and a cap on the size read.
 */
import type { LookupFunction } from 'node:net';
import { dialPolicyFor } from '../domain/dial-policy.js';
import { HttpExchange, type ExchangeAnswer } from './http-exchange.js';
import { OemFailure, type CommandRequest, type CommandState, type OemConnector } from './oem-connector.js';

export interface HttpConnectorSettings {
  readonly baseUrl: string;
  readonly initiateTimeoutMs: number;
  readonly pollTimeoutMs: number;
  /** Sent as `Authorization: Bearer` when the automaker needs a key. */
  readonly apiKey?: string | undefined;
  /** Name resolution (dns.lookup unless a test gives another). */
  readonly lookup?: LookupFunction | undefined;
}

const MAX_BODY_BYTES = 64 * 1024;

/** Scheme, host and port of a URL for a log line (never its path or query, which may carry a token). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'not a URL';
  }
}

/** The answer's JSON; throws on an empty or unparsable body. */
const parseJson = (body: Buffer): unknown => JSON.parse(body.toString('utf8'));

export class HttpConnector implements OemConnector {
  readonly #settings: HttpConnectorSettings;
  readonly #origin: string;
  /** The origin and the slash a path starts with: a URL beginning so is on the origin. */
  readonly #originSlash: string;
  /** Headers of every poll and initiation: fixed by the settings, so built once (neither is changed by a send). */
  readonly #pollHeaders: Record<string, string>;
  readonly #initiateHeaders: Record<string, string>;
  readonly #commandsUrl: URL;
  readonly #http: HttpExchange;

  constructor(settings: HttpConnectorSettings, http?: HttpExchange) {
    const base = new URL(settings.baseUrl);
    this.#settings = settings;
    this.#origin = base.origin;
    this.#originSlash = `${base.origin}/`;
    this.#pollHeaders = { accept: 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) };
    this.#initiateHeaders = { ...this.#pollHeaders, 'content-type': 'application/json' };
    this.#commandsUrl = new URL('commands', settings.baseUrl.endsWith('/') ? settings.baseUrl : `${settings.baseUrl}/`);
    // Only addresses of the kind the operator configured may be dialled (src/domain/dial-policy.ts).
    this.#http = http ?? new HttpExchange({ dialPolicy: dialPolicyFor(base.hostname), lookup: settings.lookup });
  }

  async initiate(request: CommandRequest): Promise<{ statusUrl: string }> {
    let response: ExchangeAnswer;
    try {
      response = await this.#http.send(this.#commandsUrl, {
        method: 'POST',
        // The command id as the automaker's idempotency key: an initiation repeated after a crash
        // (src/domain/initiation.ts) must get the same status URL, and the vehicle act once.
        headers: { ...this.#initiateHeaders, 'idempotency-key': request.commandId },
        body: JSON.stringify({ id: request.commandId, vin: request.vin, command: request.command }),
        timeoutMs: this.#settings.initiateTimeoutMs,
        maxBytes: MAX_BODY_BYTES,
      });
    } catch (error) {
      // An answer too large was an answer: the automaker is there but said nothing usable.
      if ((error as { tooLarge?: boolean }).tooLarge) throw new OemFailure('initiate', 'unreadable automaker answer: too large');
      throw new OemFailure('send', `automaker unreachable: ${(error as Error).message}`);
    }
    if (response.status >= 500) throw new OemFailure('send', `automaker answered ${response.status}`);
    if (response.status < 200 || response.status >= 300) throw new OemFailure('initiate', `automaker refused with ${response.status}`);
    let body: unknown;
    try {
      body = parseJson(response.body);
    } catch (error) {
      throw new OemFailure('initiate', `unreadable automaker answer: ${(error as Error).message}`);
    }
    const statusUrl = (body as { status_url?: unknown } | undefined)?.status_url;
    if (typeof statusUrl !== 'string' || !this.#sameOrigin(statusUrl)) throw new OemFailure('initiate', 'no usable status URL');
    return { statusUrl };
  }

  #sameOrigin(url: string): boolean {
    // The usual answer spells the origin exactly as the URL parser does: no parse needed (every
    // creation checks one). Anything else (a default port, upper case) is parsed and compared.
    if (url.startsWith(this.#originSlash)) return true;
    try {
      return new URL(url).origin === this.#origin;
    } catch {
      return false;
    }
  }

  async poll(statusUrl: string): Promise<CommandState> {
    if (!this.#sameOrigin(statusUrl)) {
      // The guard stays (a status URL is fetched only from the automaker's configured origin); the
      // usual cause is an operator who changed the automaker's base URL while commands were pending.
      return { state: 'error', reason: 'internal', why: `its status URL (${originOf(statusUrl)}) is not at the automaker's configured origin (${this.#origin})` };
    }
    let response: ExchangeAnswer;
    let body: unknown;
    try {
      response = await this.#http.send(new URL(statusUrl), { method: 'GET', headers: this.#pollHeaders, timeoutMs: this.#settings.pollTimeoutMs, maxBytes: MAX_BODY_BYTES });
      if (response.status >= 500 || response.status === 429) throw new Error(`automaker answered ${response.status}`);
      body = parseJson(response.body);
    } catch (error) {
      throw new OemFailure('send', `status unavailable: ${(error as Error).message}`);
    }
    if (response.status >= 400) return { state: 'error', reason: 'internal', why: `the automaker answered its status URL with ${response.status}` };
    const answer = body as { status?: unknown; result?: unknown; error?: unknown } | undefined;
    if (answer?.status === 'pending') return { state: 'pending' };
    if (answer?.status === 'success') {
      const result = typeof answer.result === 'object' && answer.result !== null && !Array.isArray(answer.result) ? answer.result as Record<string, unknown> : {};
      return { state: 'success', result };
    }
    // An error, or an answer we cannot read: the command failed at the automaker.
    return { state: 'error', reason: typeof answer?.error === 'string' ? answer.error : 'internal' };
  }
}
