import { get, type IncomingMessage } from 'node:http';
import { scaled } from './timeouts.js';

/**
 * A Server-Sent Events reader over HTTP, as the SDK and a Node receiver read a stream: frames
 * parsed as the WHATWG rules say (fields `id`, `event`, `data`, `retry`; `:` lines are comments).
 */
export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  readonly comments: readonly string[];
}

export interface SseStream {
  readonly status: number;
  readonly headers: Headers;
  /** The body when the answer is not a stream (an error). */
  readonly text: string;
  /** Waits until `count` frames with data arrived (or throws after `timeoutMs` times TEST_TIMEOUT_FACTOR). */
  events(count: number, timeoutMs?: number): Promise<SseFrame[]>;
  /** Every frame so far, comment-only ones included. */
  readonly frames: SseFrame[];
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  // node:http with a connection of its own, not fetch: fetch's pool opens a spare connection
  // after an abort, which would hold the server's close for its headers timeout.
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, resolve);
    req.once('error', reject);
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
  const frames: SseFrame[] = [];
  let notify = () => {};
  if (!(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    let text = '';
    for await (const chunk of res) text += String(chunk);
    return { status: res.statusCode!, headers: responseHeaders, text, frames, ended: Promise.resolve(), events: async () => [], close: () => {} };
  }
  let buffer = '';
  res.setEncoding('utf8');
  const ended = (async () => {
    try {
      for await (const chunk of res as AsyncIterable<string>) {
        buffer += chunk;
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const frame: Record<string, string> = {};
          const comments: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              frame[field] = field === 'data' && frame['data'] !== undefined ? `${frame['data']}\n${value}` : value;
            }
          }
          frames.push({ ...frame, comments });
          notify();
        }
      }
    } catch { /* closed by close() */ }
    notify();
  })();
  let done = false;
  void ended.then(() => { done = true; });
  return {
    status: res.statusCode!, headers: responseHeaders, text: '', frames, ended,
    async events(count, timeoutMs = 5000) {
      const deadline = Date.now() + scaled(timeoutMs);
      for (;;) {
        const withData = frames.filter((f) => f.data !== undefined);
        if (withData.length >= count) return withData.slice(0, count);
        if (done || Date.now() > deadline) throw new Error(`${withData.length} of ${count} events arrived (stream ${done ? 'ended' : 'open'})`);
        await new Promise<void>((resolve) => {
          notify = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
    close: () => res.destroy(),
  };
}
