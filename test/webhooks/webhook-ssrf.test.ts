/**
 * Where webhooks may not go (SSRF), on a service without `--webhook-allow-cidr`: inside
 * addresses in every spelling are refused at registration; a host name is judged again by the
 * address it resolves to when the connection is made (a rebinding resolver gets nothing); an
 * allowed LAN range opens its addresses (plain HTTP included) and never the metadata address.
 */
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, allowListOf } from '../../src/domain/webhook-url.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const REFUSED = [
  'https://127.0.0.1/hook', 'https://2130706433/hook', 'https://0x7f000001/hook', 'https://0177.0.0.1/hook', 'https://127.1/hook',
  'https://[::1]/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://[::ffff:7f00:1]/hook', 'https://[64:ff9b::7f00:1]/hook',
  'https://169.254.169.254/latest/meta-data', 'https://[fd00:ec2::254]/', 'https://10.0.0.1/hook', 'https://172.16.5.4/hook',
  'https://192.168.1.1/hook', 'https://100.64.0.1/hook', 'https://0.0.0.0/hook', 'https://[fe80::1]/hook', 'https://224.0.0.1/hook',
  'https://localhost/hook', 'https://api.localhost/hook',
];
const INVALID = ['http://example.com/hook', 'ftp://example.com/', 'https://user:pw@example.com/hook', '/relative', `https://example.com/${'a'.repeat(2048)}`, 'https://example.com/#frag'];

describe('webhook destinations, refused by default', () => {
  let svc: TestService;
  let auth: Record<string, string>;
  let lookups: string[] = [];
  let receiver: WebhookReceiver;
  // A resolver that answers a public address the first time a name is asked and loopback after
  // that: DNS rebinding. The registration never resolves; the connection's own lookup is judged.
  const asked = new Map<string, number>();
  const rebinding: LookupFunction = (hostname, options, callback) => {
    lookups.push(hostname);
    asked.set(hostname, (asked.get(hostname) ?? 0) + 1);
    const address = hostname === 'rebind.example.com' && asked.get(hostname)! > 1 ? '127.0.0.1' : hostname === 'private.example.com' ? '10.1.2.3' : '93.184.216.34';
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };

  beforeAll(async () => {
    svc = await startTestService('sqlite', undefined, { webhooks: { allowCidrs: [], lookup: rebinding } });
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('when a URL names an inside address in any spelling, then registration is refused with the reason', async () => {
    for (const url of REFUSED) {
      const res = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url, event_types: ['*'] } });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect(res.body.detail, url).toMatch(/^url points where webhooks may not go: /);
    }
    // What an operator could open names the flag that opens it; a metadata address never does.
    const loopback = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url: 'https://127.0.0.1:9000/hook', event_types: ['*'] } });
    expect(loopback.body).toEqual({ detail: 'url points where webhooks may not go: loopback address 127.0.0.1 (an operator opens its network with --webhook-allow-cidr or TELEMATICS_WEBHOOK_ALLOW_CIDRS).' });
    const metadata = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url: 'https://169.254.169.254/', event_types: ['*'] } });
    expect(metadata.body).toEqual({ detail: 'url points where webhooks may not go: metadata address 169.254.169.254.' });
    for (const url of INVALID) {
      const res = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url, event_types: ['*'] } });
      expect({ url, body: res.body }).toEqual({ url, body: { detail: 'url must be an absolute https URL of at most 2048 characters, without user name, password or fragment (plain http only on networks the operator allows with --webhook-allow-cidr or TELEMATICS_WEBHOOK_ALLOW_CIDRS).' } });
    }
    for (const body of [{ url: 42, event_types: ['*'] }, {}, { url: 'https://example.com/', event_types: [] }, { url: 'https://example.com/', event_types: ['webhook.ping'] }, { url: 'https://example.com/', event_types: 'trip.ended' }]) {
      const res = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('when a name resolves to an inside address at connection time, then nothing is sent to it', async () => {
    asked.set('rebind.example.com', 1); // its first (public) answer is spent: the next is loopback
    const res = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url: `https://rebind.example.com:${new URL(receiver.url).port}/hook`, event_types: ['*'] } });
    expect(res.status).toBe(201);
    await new Promise((r) => setTimeout(r, 100)); // the challenge sent at creation
    lookups = [];
    const verify = await svc.request('POST', `/webhook-endpoints/${res.body.id}/verify`, { headers: auth });
    expect(verify.body).toMatchObject({ status: 'pending_verification', verification: { verified: false, status_code: null, error: 'refused' } });
    expect(lookups).toContain('rebind.example.com');
    const named = await svc.request('POST', '/webhook-endpoints', { headers: auth, json: { url: 'https://private.example.com/hook', event_types: ['*'] } });
    expect(named.status).toBe(201);
    await new Promise((r) => setTimeout(r, 100));
    const attempts = await svc.request('GET', `/webhook-endpoints/${named.body.id}/attempts`, { headers: auth });
    expect(attempts.body.map((a: any) => [a.trigger, a.error])).toEqual([['verification', 'refused']]);
    expect(receiver.received).toEqual([]);
  });

  it('when the operator allows a LAN range, then its addresses are allowed (plain HTTP too) but metadata and other ranges still are not', () => {
    const lan = allowListOf(['10.20.0.0/16', '169.254.0.0/16']);
    expect(checkWebhookUrl('http://10.20.3.4:8080/hook', lan, true)).toMatchObject({ ok: true });
    expect(checkWebhookUrl('https://10.21.0.1/hook', lan, true)).toMatchObject({ ok: false, reason: 'refused' });
    expect(checkWebhookUrl('https://169.254.169.254/', lan, true)).toMatchObject({ ok: false, reason: 'refused' });
    // Link-local (ECS credentials) and metadata services outside it stay closed, even inside allowed ranges.
    expect(checkWebhookUrl('http://169.254.170.2/v2/credentials', lan, true)).toMatchObject({ ok: false });
    const cgnat = allowListOf(['100.64.0.0/10', 'fd00::/8']);
    expect(checkWebhookUrl('http://100.100.100.200/latest/meta-data', cgnat, true)).toMatchObject({ ok: false, reason: 'refused' });
    expect(checkWebhookUrl('http://[fd00:ec2::23]/', cgnat, true)).toMatchObject({ ok: false, reason: 'refused' });
    expect(checkWebhookUrl('http://100.64.1.2/hook', cgnat, true)).toMatchObject({ ok: true });
    expect(checkWebhookUrl('http://example.com/hook', allowListOf([]), false)).toMatchObject({ ok: false, reason: 'invalid' });
    // The name localhost is refused early unless loopback is open (the demo opens it).
    expect(checkWebhookUrl('http://localhost:3000/hook', lan, true)).toMatchObject({ ok: false, reason: 'refused' });
    expect(checkWebhookUrl('http://localhost:3000/hook', allowListOf(['127.0.0.0/8', '::1/128']), true)).toMatchObject({ ok: true });
    expect(() => allowListOf(['10.0.0.0/33'])).toThrow(/not a CIDR range/);
    expect(() => allowListOf(['ten/8'])).toThrow(/not a CIDR range/);
  });
});
