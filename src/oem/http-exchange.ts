/**
 * One HTTP exchange with an automaker: node:http over keep-alive connections (several times
 * cheaper per call than fetch, which matters because every command creation makes one and every
 * poll another). No redirect is ever followed; the deadline covers waiting for a connection,
 * the answer's headers and its whole body; a body past `maxBytes` is abandoned.
 */
import * as http from 'node:http';
import * as https from 'node:https';

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

export class HttpExchange {
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 128 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 128 }),
  };

  send(url: URL, request: ExchangeRequest): Promise<ExchangeAnswer> {
    const protocol = url.protocol === 'https:' ? 'https:' : url.protocol === 'http:' ? 'http:' : undefined;
    if (protocol === undefined) return Promise.reject(new ExchangeFailed(`unsupported scheme ${url.protocol}`));
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
