/**
 * The ingest queue behind NATS authentication and TLS: real nats-server processes
 * that require a user and password, a token, an NKey, a `.creds` file (operator mode, with JWTs
 * signed here), or TLS with a client certificate (a throwaway CA made with openssl). With the right settings, read from the environment as the
 * service reads them, the queue opens; with wrong ones the start fails with one line that says
 * which setting to check and holds no secret, and `serve` exits instead of retrying for ever.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestQueueSettingsOf } from '../../src/config/component-settings.js';
import { loadConfig, type FlagValues } from '../../src/config/load-config.js';
import { IngestQueue } from '../../src/queue/ingest-queue.js';
import { startNatsServers, type NatsServers } from '../support/nats-servers.js';
import { serveEnv, startUnlistenedServiceProcess } from '../support/service-process.js';
import { scaled } from '../support/timeouts.js';

const silent = pino({ level: 'silent' });

const b64url = (data: string | Uint8Array) => Buffer.from(data).toString('base64url');
/** A NATS JWT (v2) of `claims` signed by `signer`, as `nsc` writes them. */
function natsJwt(signer: ReturnType<typeof nkeys.createOperator>, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  const claims = { jti: b64url(`${subject}-${Math.random()}`), iat: Math.floor(Date.now() / 1000), iss: signer.getPublicKey(), name, sub: subject, nats: { ...nats, version: 2 } };
  const body = `${header}.${b64url(JSON.stringify(claims))}`;
  return `${body}.${b64url(signer.sign(new TextEncoder().encode(body)))}`;
}

/** An operator, an account with JetStream, and one user's .creds file text, for a server in operator mode. */
function operatorSetup() {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const unlimited = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };
  const operatorJwt = natsJwt(operator, operator.getPublicKey(), 'test-operator', { type: 'operator' });
  const accountJwt = natsJwt(operator, account.getPublicKey(), 'telematics', { type: 'account', limits: unlimited, default_permissions: { pub: {}, sub: {} } });
  // JetStream needs a system account to start in operator mode.
  const system = nkeys.createAccount();
  const systemJwt = natsJwt(operator, system.getPublicKey(), 'SYS', { type: 'account', limits: { ...unlimited, mem_storage: 0, disk_storage: 0, streams: 0, consumer: 0 } });
  const credsOf = (issuer: typeof account, u: typeof user) => {
    const jwt = natsJwt(issuer, u.getPublicKey(), 'writer', { type: 'user', pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
    return `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(u.getSeed())}\n------END USER NKEY SEED------\n`;
  };
  return {
    config: `operator: ${operatorJwt}\nsystem_account: ${system.getPublicKey()}\nresolver: MEMORY\nresolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }\n`,
    creds: credsOf(account, user),
    /** A user signed by an account the server does not know. */
    strangerCreds: credsOf(nkeys.createAccount(), nkeys.createUser()),
  };
}
const PASSWORD = 'correct-horse-battery-staple';
const TOKEN = 's3cr3t-token-value';

/** Opens the queue as `serve` would with these flags and environment; resolves to the open queue or the start error's text. */
async function openWith(flags: FlagValues, env: NodeJS.ProcessEnv): Promise<string> {
  const settings = ingestQueueSettingsOf(loadConfig({ ingestQueuePartitions: '1', ...flags }, env))!;
  try {
    const queue = await IngestQueue.open(settings, silent);
    await queue.close();
    return 'open';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('ingest queue credentials', () => {
  let servers: NatsServers[] = [];
  let dir: string;
  const start = async (config: string) => {
    const started = await startNatsServers(1, config);
    servers.push(started);
    return started.nodes[0]!.url;
  };
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'telematics-queue-auth-')); });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the servers require a user and password, then the right ones open the queue, and wrong or missing ones are one clear line without the secret', async () => {
    const url = await start(`authorization { user: telematics, password: "${PASSWORD}" }`);
    expect(await openWith({ ingestQueue: url, ingestQueueUser: 'telematics' }, { TELEMATICS_INGEST_QUEUE_PASSWORD: PASSWORD })).toBe('open');
    const wrong = await openWith({ ingestQueue: url, ingestQueueUser: 'telematics' }, { TELEMATICS_INGEST_QUEUE_PASSWORD: 'wrong-password-xyz' });
    expect(wrong).toMatch(/^the ingest queue at nats:\/\/127\.0\.0\.1:\d+ refused this process's credentials \(.*\): check --ingest-queue-user and TELEMATICS_INGEST_QUEUE_PASSWORD$/);
    expect(wrong).not.toContain('wrong-password-xyz');
    expect(await openWith({ ingestQueue: url }, {})).toMatch(/refused this process's credentials .*none are set/);
  }, scaled(30_000));

  it('when a `serve` process has the wrong password, then it exits with one line naming the setting, not retrying; with the right one it runs', async () => {
    const url = await start(`authorization { user: telematics, password: "${PASSWORD}" }`);
    const args = ['--role', 'writers', '--database', join(dir, 'writers.db'), '--ingest-queue', url, '--ingest-queue-user', 'telematics'];
    const failed = await startUnlistenedServiceProcess(args, serveEnv('sqlite', { TELEMATICS_INGEST_QUEUE_PASSWORD: 'wrong-password-xyz' }), 'telemetry writers taking')
      .then(() => 'started', (error: Error) => error.message);
    expect(failed).toMatch(/^serve exited with 1:/);
    const lines = failed.split('\n').filter((l) => l.startsWith('telematics:'));
    expect(lines).toEqual([expect.stringMatching(/^telematics: the ingest queue at .* refused this process's credentials .*TELEMATICS_INGEST_QUEUE_PASSWORD$/)]);
    expect(failed).not.toContain('wrong-password-xyz');
    const running = await startUnlistenedServiceProcess(args, serveEnv('sqlite', { TELEMATICS_INGEST_QUEUE_PASSWORD: PASSWORD }), 'telemetry writers taking');
    expect(running.output()).not.toContain(PASSWORD);
    await running.stop();
  }, scaled(60_000));

  it('when the servers require a token, then TELEMATICS_INGEST_QUEUE_TOKEN opens the queue and a wrong one is refused clearly', async () => {
    const url = await start(`authorization { token: "${TOKEN}" }`);
    expect(await openWith({ ingestQueue: url }, { TELEMATICS_INGEST_QUEUE_TOKEN: TOKEN })).toBe('open');
    const wrong = await openWith({ ingestQueue: url }, { TELEMATICS_INGEST_QUEUE_TOKEN: 'not-the-token' });
    expect(wrong).toMatch(/refused this process's credentials .*: check TELEMATICS_INGEST_QUEUE_TOKEN$/);
    expect(wrong).not.toContain('not-the-token');
  }, scaled(30_000));

  it('when the servers know the process by an NKey, then its seed opens the queue and another seed is refused', async () => {
    const user = nkeys.createUser();
    const url = await start(`authorization { users: [ { nkey: "${user.getPublicKey()}" } ] }`);
    const seed = new TextDecoder().decode(user.getSeed());
    expect(await openWith({ ingestQueue: url }, { TELEMATICS_INGEST_QUEUE_NKEY_SEED: seed })).toBe('open');
    const other = new TextDecoder().decode(nkeys.createUser().getSeed());
    const wrong = await openWith({ ingestQueue: url }, { TELEMATICS_INGEST_QUEUE_NKEY_SEED: other });
    expect(wrong).toMatch(/refused this process's credentials .*: check TELEMATICS_INGEST_QUEUE_NKEY_SEED$/);
    expect(wrong).not.toContain(other);
  }, scaled(30_000));

  it('when the servers run in operator mode, then a .creds file of a user of the account opens the queue, and one of another account is refused', async () => {
    const setup = operatorSetup();
    const url = await start(setup.config);
    writeFileSync(join(dir, 'writer.creds'), setup.creds, { mode: 0o600 });
    writeFileSync(join(dir, 'stranger.creds'), setup.strangerCreds, { mode: 0o600 });
    expect(await openWith({ ingestQueue: url, ingestQueueCreds: join(dir, 'writer.creds') }, {})).toBe('open');
    const wrong = await openWith({ ingestQueue: url, ingestQueueCreds: join(dir, 'stranger.creds') }, {});
    expect(wrong).toMatch(/refused this process's credentials .*: check --ingest-queue-creds$/);
  }, scaled(30_000));

  it('when the servers speak TLS and verify clients, then the CA file and a client certificate open the queue; without the CA the start says TLS failed', async () => {
    const file = (name: string) => join(dir, name);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=test-ca', '-keyout', file('ca.key'), '-out', file('ca.pem'));
    writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    for (const name of ['server', 'client']) {
      openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`));
      openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '1', '-out', file(`${name}.pem`),
        ...(name === 'server' ? ['-extfile', file('server.ext')] : []));
    }
    const url = await start(`tls { cert_file: "${file('server.pem')}", key_file: "${file('server.key')}", ca_file: "${file('ca.pem')}", verify: true }`);
    const tls = { ingestQueueTlsCa: file('ca.pem'), ingestQueueTlsCert: file('client.pem'), ingestQueueTlsKey: file('client.key') };
    expect(await openWith({ ingestQueue: url, ...tls }, {})).toBe('open');
    expect(await openWith({ ingestQueue: url.replace('nats://', 'tls://'), ...tls }, {})).toBe('open');
    expect(await openWith({ ingestQueue: url, ingestQueueTlsCert: tls.ingestQueueTlsCert, ingestQueueTlsKey: tls.ingestQueueTlsKey }, {})).toMatch(/^the ingest queue at .* failed TLS \(.*\): check --ingest-queue-tls-ca/);
  }, scaled(60_000));
});
