import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_ABANDONED_MS, IDEMPOTENCY_KEY_TTL_MS } from '../../src/commands/idempotent-creation.js';
import type { SimulatedOemCloud } from '../../src/sim/simulated-oem-cloud.js';
import { deleteIdempotencyKeysBefore } from '../../src/store/idempotency-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { sign } from '../support/command-client.js';
import { startTestService, type TestResponse, type TestService } from '../support/test-service.js';

const VIN = ALPHA_VINS[0];

describe.each(DATABASE_KINDS)('Idempotency-Key on POST /vehicle-command on %s', (kind) => {
  let svc: TestService;
  let cloud: SimulatedOemCloud;
  let dispatchToken: string;
  let reportsToken: string;
  let counter = 0;
  const freshKey = () => `key-${kind}-${(counter += 1)}-${Date.now()}`;

  const send = (body: Record<string, unknown>, key: string | undefined, as: 'dispatch' | 'reports' = 'dispatch'): Promise<TestResponse> => {
    const secret = as === 'dispatch' ? SECRETS.alphaDispatch.sign : SECRETS.alphaReports.sign;
    const headers: Record<string, string> = {
      authorization: `Bearer ${as === 'dispatch' ? dispatchToken : reportsToken}`,
      'x-signature': sign(secret, String(body.vin), String(body.command)),
    };
    if (key !== undefined) headers['idempotency-key'] = key;
    return svc.request('POST', '/vehicle-command', { json: body, headers });
  };
  const sentToAutomaker = (id: string) => cloud.received.filter((r) => r.id === id).length;
  const commandRows = async () => Number((await svc.store.db.selectFrom('commands').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  /** Tokens as of the test clock (the 24 h test moves it past their expiry). */
  const refreshTokens = async () => {
    dispatchToken = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    reportsToken = await svc.token('alpha-reports', SECRETS.alphaReports.client);
  };

  beforeAll(async () => {
    svc = await startTestService(kind);
    ({ cloud } = await svc.useSimulatedCloud());
    await refreshTokens();
  });
  afterAll(async () => { await svc?.close(); });

  it('when a creation is retried with the same key and request, then the first response comes back and nothing new is sent', async () => {
    const key = freshKey();
    const first = await send({ vin: VIN, command: 'diagnostics' }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const rows = await commandRows();
    const again = await send({ command: 'diagnostics', vin: VIN, note: 'extra fields and key order do not matter' }, key);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await commandRows()).toBe(rows);
    expect(sentToAutomaker(first.body.id)).toBe(1);
  });

  it('when the same key comes with another request, then 422 and no command', async () => {
    const key = freshKey();
    expect((await send({ vin: VIN, command: 'diagnostics' }, key)).status).toBe(200);
    const rows = await commandRows();
    const other = await send({ vin: ALPHA_VINS[1], command: 'diagnostics' }, key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ detail: 'Idempotency-Key already used with a different request.' });
    expect(await commandRows()).toBe(rows);
  });

  it('when 20 requests with one key arrive at once, then exactly one command exists and reaches the automaker', async () => {
    const key = freshKey();
    const rows = await commandRows();
    const answers = await Promise.all(Array.from({ length: 20 }, () => send({ vin: VIN, command: 'diagnostics' }, key)));
    expect(await commandRows()).toBe(rows + 1);
    const created = answers.filter((a) => a.status === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    for (const busy of answers.filter((a) => a.status !== 200)) {
      expect(busy.status).toBe(409);
      expect(busy.body).toEqual({ detail: 'A request with this Idempotency-Key is still being processed.' });
      expect(busy.headers.get('retry-after')).toBe('1');
    }
    expect(sentToAutomaker(created[0]!.body.id)).toBe(1);
  });

  it('when a request with a key is refused, then the key is not kept and a corrected retry with it runs', async () => {
    const key = freshKey();
    const refused = await svc.request('POST', '/vehicle-command', {
      json: { vin: VIN, command: 'diagnostics' }, headers: { authorization: `Bearer ${dispatchToken}`, 'x-signature': '0'.repeat(64), 'idempotency-key': key },
    });
    expect(refused.status).toBe(403);
    const corrected = await send({ vin: VIN, command: 'diagnostics' }, key);
    expect(corrected.status).toBe(200);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when two applications use the same key, then each gets its own command', async () => {
    const key = freshKey();
    const a = await send({ vin: VIN, command: 'diagnostics' }, key, 'dispatch');
    const b = await send({ vin: VIN, command: 'diagnostics' }, key, 'reports');
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('when the first step of an ignition command is retried, then the same code comes back, and it is not stored in clear', async () => {
    const key = freshKey();
    const first = await send({ vin: VIN, command: 'disable_ignition' }, key);
    expect(first.body.status).toBe('Confirmation');
    const again = await send({ vin: VIN, command: 'disable_ignition' }, key);
    expect(again.body).toEqual(first.body);
    const stored = await svc.store.db.selectFrom('idempotency_keys').select('response').where('key', '=', key).executeTakeFirstOrThrow();
    expect(stored.response).not.toContain(first.body.code);
    expect(stored.response).not.toContain(VIN);
  });

  it.each([
    ['a wrong X-Signature', { 'x-signature': 'a'.repeat(64) }, 403, 'X-Signature invalid.'],
    ['no X-Signature', {}, 403, 'X-Signature invalid.'],
    ['a malformed X-Signature', { 'x-signature': 'not hex' }, 403, 'X-Signature invalid.'],
  ])('when a kept first step is asked for again with its key and %s, then it is refused as the original would be and the code is not handed back', async (_what, extra, status, detail) => {
    const key = freshKey();
    const first = await send({ vin: VIN, command: 'disable_ignition' }, key);
    expect(first.body.status).toBe('Confirmation');
    const replay = await svc.request('POST', '/vehicle-command', {
      json: { vin: VIN, command: 'disable_ignition' },
      headers: { authorization: `Bearer ${dispatchToken}`, 'idempotency-key': key, ...extra },
    });
    expect(replay.status).toBe(status);
    expect(replay.body).toEqual({ detail });
    expect(replay.headers.get('idempotent-replayed')).toBeNull();
    expect(replay.text).not.toContain(first.body.code);
  });

  it('when a kept answer is asked for with its key but a body that fails D4 before the signature, then that check answers', async () => {
    const key = freshKey();
    expect((await send({ vin: VIN, command: 'diagnostics' }, key)).status).toBe(200);
    const replay = await svc.request('POST', '/vehicle-command', {
      json: { command: 'diagnostics' }, headers: { authorization: `Bearer ${dispatchToken}`, 'idempotency-key': key },
    });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when the key is older than 24 h, then it is free again and makes a new command', async () => {
    const key = freshKey();
    const first = await send({ vin: VIN, command: 'diagnostics' }, key);
    svc.clock.advance(IDEMPOTENCY_KEY_TTL_MS + 1000);
    await refreshTokens();
    const later = await send({ vin: VIN, command: 'diagnostics' }, key);
    expect(later.status).toBe(200);
    expect(later.body.id).not.toBe(first.body.id);
    expect(await deleteIdempotencyKeysBefore(svc.store.db, svc.clock.now() - IDEMPOTENCY_KEY_TTL_MS)).toBeGreaterThanOrEqual(1);
  });

  it('when the request holding a key died unanswered, then a retry after a minute runs afresh', async () => {
    const key = freshKey();
    await svc.store.db.insertInto('idempotency_keys').values({
      application_id: (await svc.store.db.selectFrom('applications').select('id').where('client_id', '=', 'alpha-dispatch').executeTakeFirstOrThrow()).id,
      key, fingerprint: 'f'.repeat(64), status_code: null, response: null, created_at: svc.clock.now(),
    }).execute();
    expect((await send({ vin: VIN, command: 'diagnostics' }, key)).status).toBe(422);
    svc.clock.advance(IDEMPOTENCY_ABANDONED_MS + 1000);
    expect((await send({ vin: VIN, command: 'diagnostics' }, key)).status).toBe(200);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
    ['holding a tab', 'key\twith-tab'],
  ])('when the key is %s, then 400 and no command', async (_what, key) => {
    const rows = await commandRows();
    const res = await send({ vin: VIN, command: 'diagnostics' }, key);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' });
    expect(await commandRows()).toBe(rows);
  });
});
