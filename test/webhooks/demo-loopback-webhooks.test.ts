/**
 * Webhooks to a receiver on the same machine, as a newcomer tries them against `npm start`: the
 * demo (a real `telematics serve --demo`, no `--webhook-allow-cidr`) accepts
 * `http://127.0.0.1:<port>/…` and delivers there, signed; docs/events.md's Python receiver,
 * run as written, goes through register → start with the secret → verify → a signed ping.
 * Without `--demo` the same configuration opens nothing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startDemo, type DemoProcess } from '../support/demo-process.js';
import { freePort } from '../support/free-port.js';
import { until } from '../support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { scaled } from '../support/timeouts.js';

const EVENTS_DOC = new URL('../../docs/events.md', import.meta.url);
const PYTHON = spawnSync('python3', ['--version']).status === 0;

describe('webhooks against the demo, to a receiver on this machine', () => {
  let folder: string;
  let demo: DemoProcess | undefined;
  let receiver: WebhookReceiver | undefined;
  let python: ChildProcess | undefined;
  let auth: Record<string, string>;
  const api = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(`${demo!.values['BASE']}${path}`, {
      method, headers: { ...auth, ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, body: json === undefined ? undefined : JSON.stringify(json),
    });
    return { status: res.status, body: await res.json() as Record<string, any> };
  };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'telematics-demo-hooks-'));
    demo = await startDemo(folder, { TELEMATICS_SIM_BACKFILL: '1h' });
    const token = await fetch(`${demo.values['BASE']}/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: demo.values['CLIENT_ID']!, client_secret: demo.values['CLIENT_SECRET']! }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    auth = { authorization: `Bearer ${token.token}` };
  }, scaled(120_000));

  afterAll(async () => {
    python?.kill('SIGTERM');
    await receiver?.close();
    await demo?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('when started, then the banner says loopback receivers are accepted and which flag opens them elsewhere', () => {
    expect(demo!.output()).toMatch(/^Webhooks: receivers on this machine \(http:\/\/127\.0\.0\.1:…\) are accepted in the demo; without --demo they need --webhook-allow-cidr\.$/m);
  });

  it('when a loopback receiver is registered, then it receives the signed verification and the endpoint is enabled', async () => {
    receiver = await startWebhookReceiver();
    const created = await api('POST', '/webhook-endpoints', { url: receiver.url, event_types: ['*'] });
    expect(created.status).toBe(201);
    const [challenge] = await receiver.waitFor(1, 'webhook.verification');
    const key = Buffer.from(String(created.body['secret']).slice('whsec_'.length), 'base64');
    const { headers, body } = challenge!;
    const expected = createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest('base64');
    expect(String(headers['webhook-signature']).split(' ')).toContain(`v1,${expected}`);
    await until('the endpoint enabled', async () => (await api('GET', `/webhook-endpoints/${created.body['id']}`)).body['status'] === 'enabled', 10_000);
  }, scaled(30_000));

  it.skipIf(!PYTHON)("when docs/events.md's Python receiver is run as its steps say, then it is verified and answers a signed ping", async () => {
    const code = /```python\n([\s\S]*?)```/.exec(readFileSync(EVENTS_DOC, 'utf8'))![1]!;
    writeFileSync(join(folder, 'receiver.py'), code);
    const port = await freePort();
    // 1. register: the secret is in the answer only.
    const created = await api('POST', '/webhook-endpoints', { url: `http://127.0.0.1:${port}/hook`, event_types: ['*'] });
    expect(created.status).toBe(201);
    // 2. start the receiver with that secret.
    python = spawn('python3', ['receiver.py'], { cwd: folder, env: { PATH: process.env.PATH, WEBHOOK_SECRET: created.body['secret'], RECEIVER_PORT: String(port) }, stdio: 'ignore' });
    // 3. verify: the first challenge found nobody listening; again until the receiver is up (one per 5 s).
    let verified: Record<string, any> = {};
    await until('the Python receiver verified', async () => {
      const res = await api('POST', `/webhook-endpoints/${created.body['id']}/verify`);
      if (res.status === 200) verified = res.body;
      return verified['status'] === 'enabled';
    }, 30_000, 1000);
    expect(verified['verification']).toEqual({ verified: true, status_code: 200, error: null });
    // 4. a signed ping, answered 204 only once its signature checked out.
    let ping: Record<string, any> = {};
    await until('a ping answered', async () => {
      const res = await api('POST', `/webhook-endpoints/${created.body['id']}/test`);
      ping = res.body;
      return res.status === 200;
    }, 15_000, 1000);
    expect(ping).toMatchObject({ status_code: 204, error: null });
  }, scaled(60_000));

  it('when the same configuration is read without --demo, then loopback stays closed', () => {
    expect(loadConfig({}, {}).webhookAllowCidrs ?? []).toEqual([]);
    expect(loadConfig({ demo: true }, {}).webhookAllowCidrs).toEqual(['127.0.0.0/8', '::1/128']);
    expect(loadConfig({ demo: true }, { TELEMATICS_WEBHOOK_ALLOW_CIDRS: '10.20.0.0/16' }).webhookAllowCidrs).toEqual(['10.20.0.0/16', '127.0.0.0/8', '::1/128']);
  });
});
