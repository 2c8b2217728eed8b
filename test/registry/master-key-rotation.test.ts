/**
 * Rotating the master key end to end on a real service: a new key goes first, every sealed value
 * is sealed again under it, hashes are re-made on their next use, and then the old key can go
 * without any client noticing (tokens, signed commands, ingest, idempotent replays all work).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { masterKeyUsage, resealUnderCurrentKey } from '../../src/registry/master-key-rotation.js';
import { currentTotp } from '../../src/security/one-time-codes.js';
import { inviteUser } from '../../src/users/manage-users.js';
import { takeUpPasswordLink } from '../../src/users/password-links.js';
import { beginTotpEnrolment, confirmTotpEnrolment } from '../../src/users/second-factor.js';
import { verifyUserSignIn } from '../../src/users/sign-in-user.js';
import { addCurrentKey, readKeyringFile, removeKey } from '../../src/security/keyring-file.js';
import { keyringFromDocument, type Keyring } from '../../src/security/keyring.js';
import { sign } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

describe('keys file rotation', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'telematics-keys-'));
    file = join(dir, 'keys.json');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when a key is added, then it is current, the old one stays listed, and the file stays private', () => {
    writeFileSync(file, JSON.stringify({ jwt: [{ kid: 'j1', secret: Buffer.alloc(32, 1).toString('base64') }], master: [{ id: 'm1', key: Buffer.alloc(32, 2).toString('base64') }] }), { mode: 0o600 });
    const jwt = addCurrentKey(file, 'jwt');
    const master = addCurrentKey(file, 'master');
    const keyring = readKeyringFile(file);
    expect(keyring.jwt.map((k) => k.id)).toEqual([jwt, 'j1']);
    expect(keyring.master.map((k) => k.id)).toEqual([master, 'm1']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('when a key is retired, then it is gone; the current key cannot be', () => {
    const current = readKeyringFile(file).master[0]!.id;
    expect(() => removeKey(file, 'master', current)).toThrow(/current master key/);
    expect(() => removeKey(file, 'master', 'nope')).toThrow(/no master key "nope"/);
    removeKey(file, 'master', 'm1');
    expect(readKeyringFile(file).master.map((k) => k.id)).toEqual([current]);
  });
});

describe.each(DATABASE_KINDS)('master key rotation on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(kind);
    await svc.useSimulatedCloud();
  });
  afterAll(async () => { await svc?.close(); });

  const asDocument = (keyring: Keyring) => ({
    jwt: keyring.jwt.map((k) => ({ kid: k.id, secret: k.key.toString('base64') })),
    master: keyring.master.map((k) => ({ id: k.id, key: k.key.toString('base64') })),
  });
  const signedCommand = (token: string, key: string) => svc.request('POST', '/vehicle-command', {
    json: { vin: ALPHA_VINS[0], command: 'diagnostics' },
    headers: { authorization: `Bearer ${token}`, 'x-signature': sign(SECRETS.alphaDispatch.sign, ALPHA_VINS[0], 'diagnostics'), 'idempotency-key': key },
  });

  it('when the master key is rotated, re-sealed and the old one retired, then every client keeps working', async () => {
    const old = svc.keyring;
    const oldId = old.master[0]!.id;
    const first = await signedCommand(await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), 'rotation-1');
    expect(first.status).toBe(200);
    const receiver = await startWebhookReceiver();
    const hook = await svc.request('POST', '/webhook-endpoints', {
      headers: { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` }, json: { url: receiver.url, event_types: ['*'] },
    });
    expect(hook.status).toBe(201);
    // A person with a second factor: their TOTP secret is sealed under the old key.
    const people = (keyring: Keyring) => ({ store: svc.store, keyring, clock: svc.clock, users: { passwordHashCost: 10, passwordLinkLifetimeMs: 3_600_000, totpIssuer: 'Telematics' } });
    const invited = await inviteUser(people(old), { kind: 'operator', id: 'cli' }, 'alpha', { email: 'two-factor@alpha.example', role: 'viewer' });
    await takeUpPasswordLink(people(old), invited.link.token, 'a password long enough');
    const { secret } = await beginTotpEnrolment(people(old), invited.user.id);
    await confirmTotpEnrolment(people(old), invited.user.id, currentTotp(secret, svc.clock.now()));

    // 1. A new master key first, the old one still listed; the service restarted with both.
    const both = keyringFromDocument({ ...asDocument(old), master: [{ id: 'new-master', key: Buffer.alloc(32, 7).toString('base64') }, ...asDocument(old).master] }, 'test');
    await svc.restartWithKeyring(both);
    // 2. keys reseal: sealed values move at once (and a second run has nothing left to do).
    const report = await resealUnderCurrentKey(svc.store.db, both);
    expect(report).toMatchObject({ idempotentResponses: 1, webhookSecrets: 1, totpSecrets: 1, unopenable: 0 });
    expect(report.signSecrets).toBeGreaterThanOrEqual(4);
    expect(await resealUnderCurrentKey(svc.store.db, both)).toEqual({ signSecrets: 0, idempotentResponses: 0, webhookSecrets: 0, totpSecrets: 0, unopenable: 0 });
    // 3. Hashes move on their next use: a token for each application in use, one ingest.
    for (const [clientId, secret] of [['alpha-dispatch', SECRETS.alphaDispatch.client], ['alpha-reports', SECRETS.alphaReports.client], ['alpha-short', SECRETS.alphaShort.client], ['beta-ops', SECRETS.betaOps.client]] as const) {
      await svc.token(clientId, secret);
    }
    expect((await svc.ingest([])).status).toBe(200);
    const usage = (await masterKeyUsage(svc.store.db, both)).find((u) => u.keyId === oldId)!;
    // Left: the disabled application's hash (it cannot sign in) and othermotors' generated ingest
    // key, which nobody has pushed with: both secrets must be rotated before the old key can go.
    // And the person's unused recovery codes: hashes, re-made only when they enrol again.
    expect(usage).toMatchObject({ current: false, known: true, signSecrets: 0, ingestKeyHashes: 1, idempotentResponses: 0, clientSecretHashes: 1, webhookSecrets: 0, totpSecrets: 0, recoveryCodeHashes: 10 });

    // 4. The old key retired: everything that is in use still works.
    const onlyNew = keyringFromDocument({ ...asDocument(old), master: [asDocument(both).master[0]!] }, 'test');
    await svc.restartWithKeyring(onlyNew);
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    const replay = await signedCommand(token, 'rotation-1');
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect((await signedCommand(token, 'rotation-2')).status).toBe(200);
    expect((await svc.ingest([])).status).toBe(200);
    // The webhook secret opens under the new key: a signed ping reaches the receiver.
    const ping = await svc.request('POST', `/webhook-endpoints/${hook.body.id}/test`, { headers: { authorization: `Bearer ${token}` } });
    expect(ping.body).toMatchObject({ status_code: 200, error: null });
    await receiver.close();
    // The re-sealed TOTP secret opens under the new key: the person signs in with a code.
    svc.clock.advance(30_000);
    const signedIn = await verifyUserSignIn(people(onlyNew), 'two-factor@alpha.example', 'a password long enough', currentTotp(secret, svc.clock.now()));
    expect(signedIn.secondFactor).toBe('totp');
    expect((await masterKeyUsage(svc.store.db, onlyNew)).find((u) => u.keyId === oldId)).toMatchObject({ known: false, clientSecretHashes: 1 });
  });

  it('when a kept response is under a key no longer listed, then the retry runs as a new request instead of failing', async () => {
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    const first = await signedCommand(token, 'lost-key-1');
    expect(first.status).toBe(200);
    await svc.store.db.updateTable('idempotency_keys').set({ response: 'v1.gone-key.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA' }).where('key', '=', 'lost-key-1').execute();
    const retry = await signedCommand(token, 'lost-key-1');
    expect(retry.status).toBe(200);
    expect(retry.body.id).not.toBe(first.body.id);
  });
});
