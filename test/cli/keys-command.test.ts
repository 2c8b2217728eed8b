/**
 * `telematics keys` as an operator runs it on a keys file and a SQLite database: rotate the master
 * key, see what is stored under each key, re-seal, and retire the old key only when it is safe.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKeyringFile } from '../../src/security/keyring-file.js';
import { fixtureFleet } from '../support/fixture-fleet.js';
import { BIN } from '../support/service-process.js';
import { scaled } from '../support/timeouts.js';

const run = promisify(execFile);

describe('telematics keys', () => {
  let dir: string;
  let keysFile: string;
  let database: string;
  const env = { ...process.env, TELEMATICS_JWT_KEYS: '', TELEMATICS_MASTER_KEYS: '' };
  const cli = (...args: string[]) => run(process.execPath, [BIN, ...args], { env });
  const withStore = (...args: string[]) => cli(...args, '--database', database, '--keys-file', keysFile);
  const fails = (...args: string[]) => withStore(...args).then(() => { throw new Error('expected a failure'); }, (e: { code: number; stderr: string }) => e);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'telematics-keys-cli-'));
    keysFile = join(dir, 'keys.json');
    database = join(dir, 'fleet.db');
    await cli('keys', 'generate', keysFile);
    await cli('migrate', '--database', database, '--keys-file', keysFile);
    const fleetFile = join(dir, 'fleet.json');
    writeFileSync(fleetFile, JSON.stringify(fixtureFleet()));
    await withStore('admin', 'apply', fleetFile);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when the master key is rotated, then usage shows the old key holding values, reseal moves the sealed ones, and retire waits for the rest', async () => {
    const oldId = readKeyringFile(keysFile).master[0]!.id;
    const rotated = await cli('keys', 'rotate', keysFile, '--master');
    const newId = readKeyringFile(keysFile).master[0]!.id;
    expect(rotated.stdout).toContain(`new current master key "${newId}"`);
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);

    const usage = JSON.parse((await withStore('keys', 'usage', '--json')).stdout) as { keyId: string; current: boolean; signSecrets: number; clientSecretHashes: number }[];
    expect(usage.find((u) => u.keyId === newId)).toMatchObject({ current: true, signSecrets: 0, clientSecretHashes: 0 });
    expect(usage.find((u) => u.keyId === oldId)).toMatchObject({ current: false, signSecrets: 5, clientSecretHashes: 5 });

    const resealed = JSON.parse((await withStore('keys', 'reseal', '--json')).stdout);
    expect(resealed).toEqual({ signSecrets: 5, idempotentResponses: 0, webhookSecrets: 0, totpSecrets: 0, unopenable: 0 });

    // Client-secret and ingest-key hashes (5 + 2: both OEMs have a key) still name the old key:
    // retiring it is refused.
    const refused = await fails('keys', 'retire', oldId, '--master');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/still holds 7 stored values/);
    expect(readKeyringFile(keysFile).master.map((k) => k.id)).toEqual([newId, oldId]);

    await withStore('keys', 'retire', oldId, '--master', '--force');
    expect(readKeyringFile(keysFile).master.map((k) => k.id)).toEqual([newId]);
    expect((await fails('keys', 'retire', newId, '--master')).stderr).toMatch(/current master key/);
  });

  it('when a JWT key is rotated and the old one retired, then only the new one is left; the kind must be named', async () => {
    const oldKid = readKeyringFile(keysFile).jwt[0]!.id;
    await cli('keys', 'rotate', keysFile, '--jwt');
    await withStore('keys', 'retire', oldKid, '--jwt');
    expect(readKeyringFile(keysFile).jwt.map((k) => k.id)).not.toContain(oldKid);
    expect((await fails('keys', 'retire', 'x')).stderr).toMatch(/--jwt or --master/);
  });

  it('when the keys file goes into a folder that does not exist, then generate makes the folder (mode 0700) and says so', async () => {
    const file = join(dir, 'etc', 'telematics', 'keys.json');
    const generated = await cli('keys', 'generate', file);
    expect(generated.stdout.trim()).toBe(`wrote ${file} (and made ${join(dir, 'etc', 'telematics')}, mode 0700)`);
    expect(statSync(join(dir, 'etc', 'telematics')).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await cli('keys', 'generate', join(dir, 'etc', 'telematics', 'second.json'))).stdout.trim()).toBe(`wrote ${join(dir, 'etc', 'telematics', 'second.json')}`);
  }, scaled(60_000));

  it('when a key id starts with "-" (base64url), then retire takes it as the id, and a mistyped option is still refused', async () => {
    expect((await fails('keys', 'retire', '-iSKEtDTf43N', '--jwt')).stderr).toMatch(/has no jwt key "-iSKEtDTf43N"/);
    expect((await fails('keys', 'retire', 'abc', '--jwt', '--forse')).stderr).toMatch(/too many arguments/);
  });
});
