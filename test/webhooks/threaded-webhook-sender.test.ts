/**
 * Webhooks sent from worker threads (src/delivery/threaded-webhook-sender.ts) against real
 * receivers on loopback: what arrives, what comes back to whom when many are in flight, the dial
 * guard judged in the thread, deadlines, and stopping. The thread runs the built script
 * (dist/delivery/webhook-send-thread.js; `npm test` builds first), as `serve` does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadedWebhookSender } from '../../src/delivery/threaded-webhook-sender.js';
import { SendFailed } from '../../src/delivery/webhook-sender.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const threadFile = new URL('../../dist/delivery/webhook-send-thread.js', import.meta.url);
const LOOPBACK = ['127.0.0.0/8'];
const options = { timeoutMs: 2000, readBytes: 0 };

let sender: ThreadedWebhookSender | undefined;
let receiver: WebhookReceiver | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await sender?.close();
  await receiver?.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
  sender = undefined;
  receiver = undefined;
});

const senderWith = (allowCidrs: string[], threads = 1, queuedPerLane = 0) =>
  (sender = new ThreadedWebhookSender({ threads, allowCidrs, userAgent: 'telematics-webhooks/test', threadFile, queuedPerLane }));

/** A receiver that holds every request until the test releases it, counting those open at once. */
async function heldReceiver() {
  const held: Array<() => void> = [];
  let open = 0;
  let most = 0;
  const r = await startWebhookReceiver((_received, res) => {
    open += 1;
    most = Math.max(most, open);
    held.push(() => {
      open -= 1;
      res.writeHead(204).end();
    });
  });
  return {
    receiver: r,
    held,
    get most() { return most; },
    releaseOne: () => held.shift()?.(),
  };
}

/** A server that never answers (deadlines). */
async function silentServer(): Promise<string> {
  const server = createServer(() => {});
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const failureOf = (promise: Promise<unknown>) => promise.then(() => { throw new Error('expected a failure'); }, (error: unknown) => error as SendFailed);

describe('ThreadedWebhookSender', () => {
  it('posts the headers and body as given, with its user agent, and answers status, Retry-After and, when asked, the body', async () => {
    receiver = await startWebhookReceiver((_received, res) => { res.writeHead(429, { 'retry-after': '7' }).end('{"slow":"down"}'); });
    const s = senderWith(LOOPBACK);
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.ping', timestamp: '2026-11-25T00:00:00Z', data: { n: 1 } });
    const answer = await s.post(receiver.url, { 'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,abc' }, body, { timeoutMs: 2000, readBytes: 4096 });
    expect(answer).toEqual({ status: 429, retryAfter: '7', body: '{"slow":"down"}', durationMs: expect.any(Number) });
    const [got] = receiver.received;
    expect(got!.body).toBe(body);
    expect(got!.headers).toMatchObject({
      'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,abc', 'content-type': 'application/json', 'user-agent': 'telematics-webhooks/test',
      'content-length': String(Buffer.byteLength(body)),
    });
    // Discarded unless asked for.
    expect(await s.post(receiver.url, {}, '{}', options)).toMatchObject({ status: 429, retryAfter: '7', body: undefined });
  });

  it('gives each of many posts in flight its own answer, over two threads and two receivers', async () => {
    // Statuses that carry a body (204 and 304 cannot).
    const statusOf = (n: number) => [200, 201, 202, 299, 400, 429, 503][n % 7]!;
    const echo = (prefix: string) => async () => {
      const r = await startWebhookReceiver((received, res) => {
        const n = received.event.data['n'] as number;
        res.writeHead(statusOf(n)).end(`${prefix}${n}`);
      });
      return r;
    };
    const [a, b] = await Promise.all([echo('a')(), echo('b')()]);
    try {
      const s = senderWith(LOOPBACK, 2);
      const posts = Array.from({ length: 400 }, (_, n) => {
        const target = n % 2 === 0 ? a : b;
        return s.post(target.url, {}, JSON.stringify({ id: `e${n}`, type: 't', timestamp: '', data: { n } }), { timeoutMs: 5000, readBytes: 64 })
          .then((answer) => ({ n, answer }));
      });
      for (const { n, answer } of await Promise.all(posts)) {
        expect(answer).toMatchObject({ status: statusOf(n), retryAfter: undefined, body: `${n % 2 === 0 ? 'a' : 'b'}${n}` });
      }
      expect(a.received).toHaveLength(200);
      expect(b.received).toHaveLength(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('judges addresses in the thread: a loopback literal or a name resolving to loopback is refused unless allowed', async () => {
    receiver = await startWebhookReceiver();
    const port = new URL(receiver.url).port;
    const s = senderWith([]);
    const literal = await failureOf(s.post(receiver.url, {}, '{}', options));
    expect(literal).toBeInstanceOf(SendFailed);
    expect(literal.kind).toBe('refused');
    const named = await failureOf(s.post(`https://localhost:${port}/hook`, {}, '{}', options));
    expect(named.kind).toBe('refused');
    const metadata = await failureOf(senderWith(['169.254.0.0/16']).post('http://169.254.169.254/latest/meta-data', {}, '{}', options));
    expect(metadata.kind).toBe('refused');
    expect(receiver.received).toHaveLength(0);
  });

  it('fails a post with no answer by its deadline, and one to a closed port as a connection failure', async () => {
    const s = senderWith(LOOPBACK);
    const started = Date.now();
    const late = await failureOf(s.post(await silentServer(), {}, '{}', { timeoutMs: 300, readBytes: 0 }));
    expect(late.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await failureOf(s.post(`http://127.0.0.1:${port}/hook`, {}, '{}', options));
    expect(refused.kind).toBe('connection');
  });

  it('keeps at most a lane\'s concurrency on the wire, starts a waiting post as soon as one ends, and times each from its start', async () => {
    const h = await heldReceiver();
    receiver = h.receiver;
    const s = senderWith(LOOPBACK, 1, 4);
    const lane = { key: 'endpoint-1', concurrency: 2 };
    const answers = Array.from({ length: 5 }, (_, n) => s.post(receiver!.url, {}, JSON.stringify({ id: `e${n}`, type: 't', timestamp: '', data: { n } }), { ...options, lane }));
    // Another lane, and a post without one, are not held behind it.
    const other = s.post(receiver.url, {}, '{"id":"o","type":"t","timestamp":"","data":{}}', { ...options, lane: { key: 'endpoint-2', concurrency: 2 } });
    const free = s.post(receiver.url, {}, '{"id":"f","type":"t","timestamp":"","data":{}}', options);
    await receiver.waitFor(4);
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.received.map((r) => r.event.id).sort()).toEqual(['e0', 'e1', 'f', 'o']);
    // The two of endpoint-1 on the wire end one after the other, 100 ms apart; e2 starts at once.
    h.held.splice(h.held.findIndex((_, i) => receiver!.received[i]!.event.id === 'e0'), 1)[0]!();
    await receiver.waitFor(5);
    expect(receiver.received[4]!.event.id).toBe('e2');
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received).toHaveLength(5);
    while (h.held.length > 0 || receiver.received.length < 7) {
      h.releaseOne();
      await new Promise((r) => setTimeout(r, 20));
    }
    const all = await Promise.all([...answers, other, free]);
    expect(all.every((a) => a.status === 204)).toBe(true);
    expect(receiver.received.map((r) => r.event.id).slice(4)).toEqual(['e2', 'e3', 'e4']);
    // e4 waited for two rounds before it went out; its duration is its own time on the wire.
    const [e0, , , , e4] = await Promise.all(answers);
    expect(e0!.durationMs).toBeGreaterThanOrEqual(140);
    expect(e4!.durationMs).toBeLessThan(e0!.durationMs!);
  });

  it('answers `cancelled` for a lane\'s posts that are not on the wire, sends none of them, and lets those on the wire end', async () => {
    const h = await heldReceiver();
    receiver = h.receiver;
    const s = senderWith(LOOPBACK, 2, 8);
    const lane = { key: 'endpoint-1', concurrency: 2 };
    const answers = Array.from({ length: 6 }, (_, n) => s.post(receiver!.url, {}, JSON.stringify({ id: `e${n}`, type: 't', timestamp: '', data: { n } }), { ...options, lane })
      .then((a) => a.status, (e: SendFailed) => e.kind));
    await receiver.waitFor(2);
    s.cancel('endpoint-1');
    // Nothing is released before the thread has read the cancel (it answers the waiting posts
    // then): an answer it read first would rightly start the next post (CI saw that once, Node 22).
    expect(await Promise.all(answers.slice(2))).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
    // Posted after the cancel: sent as usual.
    const after = s.post(receiver.url, {}, '{"id":"late","type":"t","timestamp":"","data":{}}', { ...options, lane });
    while (receiver.received.length < 3 || h.held.length > 0) {
      h.releaseOne();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await Promise.all(answers)).toEqual([204, 204, 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect((await after).status).toBe(204);
    expect(receiver.received.map((r) => r.event.id)).toEqual(['e0', 'e1', 'late']);
    expect(h.most).toBe(2);
  });

  it('fails what is under way when closed, and every post after', async () => {
    const s = senderWith(LOOPBACK);
    const url = await silentServer();
    const underWay = failureOf(s.post(url, {}, '{}', { timeoutMs: 10_000, readBytes: 0 }));
    await new Promise((r) => setTimeout(r, 100));
    await s.close();
    expect((await underWay).kind).toBe('connection');
    expect((await failureOf(s.post(url, {}, '{}', options))).message).toBe('webhook sending stopped');
  });
});
