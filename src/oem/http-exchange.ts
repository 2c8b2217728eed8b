/**
 * One HTTP exchange with an automaker: node:http over keep-alive connections (several times
 * cheaper per call than fetch, which matters because every command creation makes one and every
 * poll another). No redirect is ever followed; the deadline covers waiting for a connection,
 * the answer's headers and its whole body; a body past `maxBytes` is abandoned. Every connection
 * dials only addresses the OEM's dial policy allows (the resolver checks each new connection,
 * kept-alive ones are not resolved again).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
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

export class HttpExchange {
  readonly #agents;
  readonly #policy: DialPolicy;
  /** The last IP-literal host judged, and the verdict: an exchange serves one origin, so one entry. */
  #literal: { host: string; refused: string | undefined } | undefined;

  constructor(options: ExchangeOptions) {
    this.#policy = options.dialPolicy;
    const lookup = guardedLookup(options.dialPolicy, options.lookup);
    this.#agents = {
      'http:': new http.Agent({ keepAlive: true, maxSockets: 128, lookup }),
      'https:': new https.Agent({ keepAlive: true, maxSockets: 128, lookup }),
    };
  }

  send(url: URL, request: ExchangeRequest): Promise<ExchangeAnswer> {
    const protocol = url.protocol === 'https:' ? 'https:' : url.protocol === 'http:' ? 'http:' : undefined;
    if (protocol === undefined) return Promise.reject(new ExchangeFailed(`unsupported scheme ${url.protocol}`));
    // Node dials IP literals without calling the resolver, so they are judged here.
    if (this.#literal?.host !== url.hostname) this.#literal = { host: url.hostname, refused: refusedLiteral(this.#policy, url.hostname) };
    if (this.#literal.refused !== undefined) return Promise.reject(new ExchangeFailed(this.#literal.refused));
    const transport = protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
      const req = transport.request(url, { method: request.method, headers, agent: this.#agents[protocol] });
      const timer = setTimeout(() => req.destroy(new ExchangeFailed(`no complete answer within ${request.timeoutMs} ms`)), request.timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error instanceof ExchangeFailed ? error : new ExchangeFailed(error.message));
      };
      req.once('error', fail);
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxBytes) {
            req.destroy(new ExchangeFailed('answer too large', true));
            return;
          }
          chunks.push(chunk);
        });
        res.once('error', fail);
        res.once('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks, size) });
        });
      });
      req.end(request.body);
    });
  }

  close(): void {
    for (const agent of Object.values(this.#agents)) agent.destroy();
  }
}
