import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const REQUEST_TIMEOUT_MS = 2000;
const CAP = 20;

interface SlowClient {
  readonly socket: Socket;
  /** What the server sent before closing, and when it closed (ms after the client connected). */
  readonly closed: Promise<{ ms: number; received: string }>;
  stop(): void;
}

/** A client that sends the headers of a large ingest request, then its body one byte every 500 ms. */
function slowClient(url: string, localAddress: string, slowPart: 'body' | 'headers' = 'body'): SlowClient {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  let received = '';
  socket.on('data', (chunk) => { received += String(chunk); });
  socket.on('error', () => {});
  const closed = new Promise<{ ms: number; received: string }>((resolve) => socket.once('close', () => resolve({ ms: Date.now() - started, received })));
  // Rightly authenticated, so the service does wait for the body.
  const head = `POST /ingest/simmotors HTTP/1.1\r\nHost: telematics\r\nAuthorization: Bearer ${SECRETS.ingest}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`;
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return;
    if (slowPart === 'headers') socket.write(head[sent++ % head.length]!);
    else socket.write(' ');
  }, 500);
  socket.once('connect', () => { if (slowPart === 'body') socket.write(head); });
  socket.once('close', () => clearInterval(timer));
  return { socket, closed, stop: () => { clearInterval(timer); socket.destroy(); } };
}

describe('slow and crowding clients', () => {
  let svc: TestService;
  let token: string;
  beforeAll(async () => {
    svc = await startTestService('sqlite', undefined, { http: { requestTimeoutMs: REQUEST_TIMEOUT_MS, connectionsPerAddress: CAP } });
    token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
  });
  afterAll(async () => { await svc?.close(); });

  it.each(['body', 'headers'] as const)('when a client sends its %s a byte at a time, then it gets 408 and is disconnected once the request timeout has passed', async (part) => {
    const client = slowClient(svc.url, '127.0.0.3', part);
    const { ms, received } = await client.closed;
    expect(ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    // Node looks for expired requests once a second.
    expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + 2500);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain('{"detail":');
  });

  it('when 50 slow clients share one address, then those past the cap are closed at once and other clients are served without delay', async () => {
    const crowd = Array.from({ length: 50 }, () => slowClient(svc.url, '127.0.0.2'));
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const closedEarly = await Promise.all(crowd.map((c) => Promise.race([c.closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 200))])));
      expect(closedEarly.filter(Boolean).length).toBe(50 - CAP);
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        const health = await fetch(`${svc.url}/healthz`);
        const vehicles = await fetch(`${svc.url}/vehicle`, { headers: { authorization: `Bearer ${token}` } });
        expect(health.status).toBe(200);
        expect(vehicles.status).toBe(200);
        expect(performance.now() - started).toBeLessThan(1000);
      }
    } finally {
      for (const client of crowd) client.stop();
    }
  });

  it('when the crowd has gone, then its address may connect again', async () => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const client = slowClient(svc.url, '127.0.0.2');
    const outcome = await Promise.race([client.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('open'), 300))]);
    client.stop();
    expect(outcome).toBe('open');
  });
});
