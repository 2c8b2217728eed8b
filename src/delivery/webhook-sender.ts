/**
 * The HTTP side of webhooks: one POST to a receiver. Every connection dials only what the
 * webhook dial policy permits (judged in the connection's own resolver, so the address checked
 * is the address dialled: no rebinding window; literals are judged before dialling). Redirects
 * are never followed (a 3xx is an answer like any other). The receiver's body is never kept: it
 * is read and discarded, except the first few KiB when the caller needs them (the verification
 * challenge); a receiver that keeps sending is cut off. The deadline covers the connection,
 * the answer's headers and, when read, the body.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { DialPolicy } from '../domain/dial-policy.js';
import { guardedLookup, refusedLiteral } from '../oem/dial-guard.js';
import type { TransportAnswer, TransportOptions } from '../webhooks/webhook-transport.js';

/** What of an answer is looked at (the start of the body only when asked for: `readBytes`). */
export type SentAnswer = TransportAnswer;

/**
 * Why no answer came: the kind is what the attempt log shows, never the receiver's text.
 * `cancelled`: a post the transport held was never sent (its lane was cancelled); no attempt.
 */
export class SendFailed extends Error {
  constructor(
    readonly kind: 'refused' | 'timeout' | 'connection' | 'tls' | 'dns' | 'cancelled',
    message: string,
    /** As SentAnswer's. */
    readonly durationMs?: number,
  ) {
    super(message);
    this.name = 'SendFailed';
  }
}

/** The deadline covers the connection, the answer's headers and, when read, the body. */
export type SendOptions = TransportOptions;

export interface WebhookSenderOptions {
  readonly policies: { readonly 'https:': DialPolicy; readonly 'http:': DialPolicy };
  /** Name resolution (dns.lookup unless a test gives another, such as a rebinding one). */
  readonly lookup?: LookupFunction | undefined;
  readonly userAgent: string;
}

/** Bytes of an answer's body read at most when it is discarded; a longer one closes the connection. */
const DISCARD_LIMIT = 64 * 1024;

function kindOf(error: NodeJS.ErrnoException): SendFailed['kind'] {
  if (error.code === 'EDIALREFUSED') return 'refused';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'dns';
  if (typeof error.code === 'string' && (error.code.startsWith('ERR_TLS') || error.code.includes('CERT') || error.code.startsWith('ERR_SSL'))) return 'tls';
  return 'connection';
}

/** URLs judged at most (one per endpoint in use); beyond it the cache starts over. */
const JUDGED_URLS = 10_000;

interface Judged {
  readonly target: URL;
  readonly protocol: 'https:' | 'http:' | undefined;
  readonly refused: string | undefined;
}

export class WebhookSender {
  readonly #options: WebhookSenderOptions;
  readonly #agents;
  readonly #judged = new Map<string, Judged>();

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
    this.#agents = {
      'http:': new http.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup(options.policies['http:'], options.lookup) }),
      'https:': new https.Agent({ keepAlive: true, maxSockets: 64, lookup: guardedLookup(options.policies['https:'], options.lookup) }),
    };
  }

  /** What a URL is and whether its host is a refused literal: the same answer every time, so judged once. */
  #judge(url: string): Judged {
    let judged = this.#judged.get(url);
    if (judged !== undefined) return judged;
    const target = new URL(url);
    const protocol = target.protocol === 'https:' ? 'https:' : target.protocol === 'http:' ? 'http:' : undefined;
    judged = protocol === undefined
      ? { target, protocol, refused: `unsupported scheme ${target.protocol}` }
      : { target, protocol, refused: refusedLiteral(this.#options.policies[protocol], target.hostname) };
    if (this.#judged.size >= JUDGED_URLS) this.#judged.clear();
    this.#judged.set(url, judged);
    return judged;
  }

  post(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SentAnswer> {
    const { target, protocol, refused } = this.#judge(url);
    if (protocol === undefined || refused !== undefined) return Promise.reject(new SendFailed('refused', refused ?? 'refused'));
    const transport = protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(target, {
        method: 'POST',
        agent: this.#agents[protocol],
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': this.#options.userAgent },
      });
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error instanceof SendFailed ? error : new SendFailed(kindOf(error as NodeJS.ErrnoException), error.message));
      };
      const timer = setTimeout(() => {
        fail(new SendFailed('timeout', `no answer within ${options.timeoutMs} ms`));
        req.destroy();
      }, options.timeoutMs);
      req.once('error', fail);
      req.once('response', (res) => {
        const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined;
        const answer = (text: string | undefined) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, retryAfter, body: text });
        };
        const limit = options.readBytes > 0 ? options.readBytes : DISCARD_LIMIT;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (options.readBytes > 0 && size <= limit) chunks.push(chunk);
          if (size > limit) {
            // Enough: the status is known, and the rest is not ours to read.
            answer(undefined);
            res.destroy();
          }
        });
        res.once('error', () => answer(undefined));
        res.once('end', () => answer(options.readBytes > 0 ? Buffer.concat(chunks).toString('utf8') : undefined));
      });
      req.end(body);
    });
  }

  close(): void {
    for (const agent of Object.values(this.#agents)) agent.destroy();
  }
}
