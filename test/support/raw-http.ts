/**
 * An HTTP request whose answer is kept as it came over the wire. fetch decodes compressed bodies
 * by itself and asks for gzip unasked; node:http does neither, so compression tests see the real
 * Content-Encoding and bytes.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body's chunks in the order they arrived, not decoded. */
  readonly chunks: readonly Buffer[];
  readonly body: Buffer;
}

export interface RawRequestOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
}

export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    // No agent: a kept-alive socket would outlive the test's server.
    const req = request(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
