/**
 * A webhook receiver on loopback, as an application runs one: a real HTTP server that records
 * every request (headers and raw body) and answers as the test says. By default it answers the
 * verification challenge as the service asks and 200 to everything else.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scaled } from './timeouts.js';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly event: { id: string; type: string; timestamp: string; data: Record<string, any> };
}

export type Answer = (received: Received, res: ServerResponse) => void | Promise<void>;

export const answerChallenge: Answer = (received, res) => {
  if (received.event.type === 'webhook.verification') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: received.event.data['challenge'] }));
  } else {
    res.writeHead(200).end('ok');
  }
};

export interface WebhookReceiver {
  readonly url: string;
  readonly received: Received[];
  /** What the receiver answers from now on. */
  answer: Answer;
  /** Waits until `count` requests (of `type`, when given) have arrived, up to `timeoutMs` times TEST_TIMEOUT_FACTOR. */
  waitFor(count: number, type?: string, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: Answer = answerChallenge): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const receiver = { answer } as WebhookReceiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: Received['event'];
      try {
        event = JSON.parse(body) as Received['event'];
      } catch {
        event = { id: '', type: '', timestamp: '', data: {} };
      }
      const entry = { path: req.url ?? '/', headers: req.headers, body, event };
      received.push(entry);
      void receiver.answer(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async waitFor(count: number, type?: string, timeoutMs = 5000) {
      const deadline = Date.now() + scaled(timeoutMs);
      for (;;) {
        const matching = received.filter((r) => type === undefined || r.event.type === type);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`${matching.length} of ${count} ${type ?? 'requests'} arrived`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}
