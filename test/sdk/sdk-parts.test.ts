/**
 * The SDK's parts that need no service: error codes for every catalogue text, the signing body
 * against the service's own, Standard Webhooks interop (the known-answer vector and the
 * `standardwebhooks` package, both ways), Server-Sent Events split anywhere, token refresh timing.
 */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { canonicalCommandBody as serviceCanonicalBody, errors } from '@telematics/contract';
import { canonicalCommandBody, errorCodeOf, TelematicsClient, WebhookVerificationError } from '@telematics/sdk';
import { readServerSentEvents, type SseState } from '../../packages/sdk/dist/sse.js';
import { TokenSource } from '../../packages/sdk/dist/token-source.js';
import { backoffMs, parseRetryAfter, retriesStatus } from '../../packages/sdk/dist/retry-policy.js';

const webhooks = new TelematicsClient({ baseUrl: 'http://127.0.0.1:1', tokenProvider: () => 'unused' }).webhooks;

describe('error codes', () => {
  it('when the service answers any catalogue text (placeholders filled), then the SDK names its code', () => {
    const samples: Record<string, string> = {
      field: 'start_date', formats: 'YYYY-MM-DD', name: 'warp', start: '2026-11-20 00:00:00', end: '2026-11-20 12:00:00', max: '5', seconds: '5',
      reason: 'a private address', limit: '10',
    };
    for (const entry of Object.values(errors)) {
      const text = entry.text.replace(/\{([a-z_]+)\}/g, (_, name: string) => samples[name] ?? 'x');
      expect({ text, code: errorCodeOf(entry.status, text) }).toEqual({ text, code: entry.code });
    }
    expect(errorCodeOf(400, 'Something the catalogue never said.')).toBeUndefined();
  });
});

describe('command signing body', () => {
  it('when any vin and command are signed, then the SDK writes the body the service verifies', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (vin, command) => {
      expect(canonicalCommandBody(vin, command)).toBe(serviceCanonicalBody(vin, command));
    }), { numRuns: 2000 });
    expect(canonicalCommandBody('9BWZZZ377VT004251', 'diagnostics')).toBe('{"command":"diagnostics","vin":"9BWZZZ377VT004251"}');
  });
});

describe('webhook verification (Standard Webhooks v1)', () => {
  const vector = {
    secret: 'whsec_plJ3nmyCDGBKInavdOK15jsl', id: 'msg_loFOjxBNrRLzqYUf', timestamp: 1731705121,
    body: '{"event_type":"ping","data":{"success":true}}', signature: 'v1,rAvfW3dJ/X/qxhsaXPOyyCGmRKsaKWcsNccKXlIktD0=',
  };
  const vectorHeaders = { 'webhook-id': vector.id, 'webhook-timestamp': String(vector.timestamp), 'webhook-signature': vector.signature };

  it('when the known-answer vector is verified, then it passes, within ±300 s and not beyond', async () => {
    const at = (seconds: number) => ({ now: (vector.timestamp + seconds) * 1000 });
    expect(await webhooks.verifySignature(vector.body, vectorHeaders, vector.secret, at(0))).toBe(vector.body);
    expect(await webhooks.verifySignature(new TextEncoder().encode(vector.body), new Headers(vectorHeaders), vector.secret, at(300))).toBe(vector.body);
    await expect(webhooks.verifySignature(vector.body, vectorHeaders, vector.secret, at(301))).rejects.toThrow('too old');
    await expect(webhooks.verifySignature(vector.body, vectorHeaders, vector.secret, at(-301))).rejects.toThrow('too new');
    expect((await webhooks.sign(vector.body, vector.secret, { id: vector.id, timestamp: vector.timestamp }))['webhook-signature']).toBe(vector.signature);
  });

  it('when a rotation puts two signatures in the header, then either secret verifies, and a list of secrets is tried in turn', async () => {
    const other = `whsec_${btoa('a second secret of 24 bytes')}`;
    const second = (await webhooks.sign(vector.body, other, { id: vector.id, timestamp: vector.timestamp }))['webhook-signature'];
    const both = { ...vectorHeaders, 'webhook-signature': `${second} ${vector.signature}` };
    const now = vector.timestamp * 1000;
    expect(await webhooks.verifySignature(vector.body, both, other, { now })).toBe(vector.body);
    expect(await webhooks.verifySignature(vector.body, vectorHeaders, [other, vector.secret], { now })).toBe(vector.body);
    await expect(webhooks.verifySignature(vector.body, { ...vectorHeaders, 'webhook-signature': 'v2,abc' }, vector.secret, { now })).rejects.toThrow(WebhookVerificationError);
    // The header sent twice reaches a Node server joined with ", ".
    expect(await webhooks.verifySignature(vector.body, { ...vectorHeaders, 'webhook-signature': `${second}, ${vector.signature}` }, vector.secret, { now })).toBe(vector.body);
  });

  it('when the secret or the options are unusable, then it says so instead of verifying with them', async () => {
    const now = vector.timestamp * 1000;
    for (const secret of ['whsec_', 'whsec_c2hvcnQ=', 'whsec_not base64!', `whsec_${btoa('fifteen bytes!!')}`]) {
      await expect(webhooks.verifySignature(vector.body, vectorHeaders, secret, { now }), secret).rejects.toThrow(TypeError);
    }
    for (const toleranceSeconds of [Number.NaN, -1]) {
      await expect(webhooks.verifySignature(vector.body, vectorHeaders, vector.secret, { now, toleranceSeconds })).rejects.toThrow(TypeError);
    }
  });

  it('when the standardwebhooks package signs, then the SDK verifies; when the SDK signs, then the package verifies', async () => {
    const secret = `whsec_${btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => (i * 37) % 256)))}`;
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.ping', timestamp: '2026-11-20T09:00:00-03:00', data: { endpoint_id: 'ep_1' } });
    const library = new Webhook(secret);
    const when = new Date();
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(when.getTime() / 1000)), 'webhook-signature': library.sign('evt_1', when, body) };
    expect(await webhooks.verify(body, headers, secret)).toMatchObject({ type: 'webhook.ping', data: { endpoint_id: 'ep_1' } });
    const ours = await webhooks.sign(body, secret, { id: 'evt_1' });
    expect(library.verify(body, ours)).toMatchObject({ type: 'webhook.ping' });
    // An event body under another delivery's id is refused.
    const moved = await webhooks.sign(body, secret, { id: 'evt_2' });
    await expect(webhooks.verify(body, moved, secret)).rejects.toThrow('differs from webhook-id');
  });
});

describe('Server-Sent Events', () => {
  const text = 'retry: 5000\n: open\n\nid: c1\nevent: command.succeeded\ndata: {"a":1}\n\n: keep-alive\r\n\r\nid: c2\r\ndata: line1\r\ndata: line2\r\n\r\nid: c3\ndata: cut';

  const streamOf = (chunks: readonly string[]) => new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

  it('when the stream is split at any points, then the same events come out and the last id is the last complete event\'s', async () => {
    await fc.assert(fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 8 }), async (cuts) => {
      const points = [0, ...cuts.sort((a, b) => a - b), text.length];
      const chunks = points.slice(1).map((end, i) => text.slice(points[i], end));
      const state: SseState = { lastEventId: undefined, retryMs: undefined };
      const events = [];
      for await (const event of readServerSentEvents(streamOf(chunks), state)) events.push(event);
      expect(events).toEqual([
        { id: 'c1', event: 'command.succeeded', data: '{"a":1}' },
        { id: 'c2', event: 'message', data: 'line1\nline2' },
      ]);
      expect(state).toEqual({ lastEventId: 'c2', retryMs: 5000 });
    }), { numRuns: 300 });
  });
});

describe('token cache', () => {
  it('when the token nears its expiry, then one refresh serves every caller; before that, none', async () => {
    let now = 0;
    let issued = 0;
    let release: () => void = () => {};
    const source = new TokenSource(async () => {
      issued += 1;
      await new Promise<void>((r) => { release = r; });
      return { token: `t${issued}`, expiration: 3600 };
    }, () => now);
    const first = Promise.all([source.get(), source.get(), source.get()]);
    release();
    expect(await first).toEqual(['t1', 't1', 't1']);
    now = 3600_000 - 120_001; // just before the 2-minute margin
    expect(await source.get()).toBe('t1');
    now += 2;
    const refreshed = Promise.all(Array.from({ length: 50 }, () => source.get()));
    await Promise.resolve();
    release();
    expect(new Set(await refreshed)).toEqual(new Set(['t2']));
    expect(issued).toBe(2);
    source.invalidate('t1'); // an old token: nothing happens
    expect(await source.get()).toBe('t2');
    source.invalidate('t2');
    const again = source.get();
    await Promise.resolve();
    release();
    expect(await again).toBe('t3');
  });

  it('when refreshing early fails, then the token in hand serves until it expires', async () => {
    let now = 0;
    let fail = false;
    const source = new TokenSource(async () => {
      if (fail) throw new Error('token endpoint down');
      return { token: 'first', expiration: 3600 };
    }, () => now);
    expect(await source.get()).toBe('first');
    fail = true;
    now = 3600_000 - 60_000; // inside the refresh margin, not expired
    expect(await source.get()).toBe('first');
    now = 3600_000; // expired: the failure is the caller's now
    await expect(source.get()).rejects.toThrow('token endpoint down');
  });

  it('when a fetch fails, then the callers see the error and the next call tries again', async () => {
    let fail = true;
    const source = new TokenSource(async () => {
      if (fail) throw new Error('down');
      return { token: 'ok', expiration: 60 };
    });
    await expect(Promise.all([source.get(), source.get()])).rejects.toThrow('down');
    fail = false;
    expect(await source.get()).toBe('ok');
  });
});

describe('retry policy', () => {
  it('retries reads on 408/429/502/503/504, keyed commands never on 502, and only the in-flight 409', () => {
    expect([408, 429, 502, 503, 504, 500, 400, 409].filter((s) => retriesStatus('read', s, undefined))).toEqual([408, 429, 502, 503, 504]);
    expect([408, 429, 502, 503, 504, 500].filter((s) => retriesStatus('keyed', s, undefined))).toEqual([408, 429, 503, 504]);
    expect(retriesStatus('keyed', 409, 'TLM_IDEMPOTENCY_KEY_IN_FLIGHT')).toBe(true);
    expect(retriesStatus('keyed', 409, 'TLM_CONFIRMATION_USED')).toBe(false);
    expect([408, 429, 503].some((s) => retriesStatus('never', s, undefined))).toBe(false);
  });

  it('backs off from 0.5 s to 5 s with jitter, and reads Retry-After as seconds or a date', () => {
    expect(backoffMs(0, () => 1)).toBe(500);
    expect(backoffMs(0, () => 0)).toBe(250);
    expect(backoffMs(10, () => 1)).toBe(5000);
    expect(parseRetryAfter('5')).toBe(5);
    expect(parseRetryAfter(new Date(61_000).toUTCString(), 1000)).toBe(60);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
