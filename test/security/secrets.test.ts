import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureKeyringFile, readKeyringFile } from '../../src/security/keyring-file.js';
import { generateKeyringDocument, keyringFromDocument, keyringFromLists, type Keyring } from '../../src/security/keyring.js';
import { openSecret, sealSecret } from '../../src/security/secret-box.js';
import { hashNeedsRefresh, hashSecret, verifySecret } from '../../src/security/secret-hash.js';

const newKeyring = () => keyringFromDocument(generateKeyringDocument(), 'test');
const rotated = (current: Keyring, previous: Keyring): Keyring => ({ jwt: current.jwt, master: [...current.master, ...previous.master] });

describe('secret box (AES-256-GCM)', () => {
  const keyring = newKeyring();

  it('opens what it sealed, for the same owner only', () => {
    const sealed = sealSecret('the sign secret', 'application:1', keyring.master);
    expect(sealed).not.toContain('the sign secret');
    expect(openSecret(sealed, 'application:1', keyring.master)).toBe('the sign secret');
    expect(() => openSecret(sealed, 'application:2', keyring.master)).toThrow();
  });

  it('uses a fresh nonce every time', () => {
    expect(sealSecret('x', 'a', keyring.master)).not.toBe(sealSecret('x', 'a', keyring.master));
  });

  it('refuses a tampered or malformed box', () => {
    const sealed = sealSecret('secret', 'a', keyring.master);
    // A character inside the tag, not the last one (whose low bits may be base64 padding).
    const at = sealed.length - 6;
    const flipped = sealed[at] === 'A' ? 'Q' : 'A';
    expect(() => openSecret(`${sealed.slice(0, at)}${flipped}${sealed.slice(at + 1)}`, 'a', keyring.master)).toThrow();
    for (const bad of ['', 'v1', 'v2.x.y.z', `${sealed}.extra`, 'v1.nokey.AAAA.AAAA']) expect(() => openSecret(bad, 'a', keyring.master)).toThrow();
  });

  it('still opens boxes of a previous master key after rotation, and seals with the new one', () => {
    const old = newKeyring();
    const sealed = sealSecret('secret', 'a', old.master);
    const both = rotated(keyring, old);
    expect(openSecret(sealed, 'a', both.master)).toBe('secret');
    expect(sealSecret('secret', 'a', both.master).split('.')[1]).toBe(keyring.master[0]!.id);
    expect(() => openSecret(sealed, 'a', keyring.master)).toThrow(/unknown master key/);
  });
});

describe('secret hash (HMAC-SHA-256 with pepper)', () => {
  const keyring = newKeyring();

  it('verifies the right secret only', () => {
    const hash = hashSecret('client-secret', keyring.master);
    expect(hash).not.toContain('client-secret');
    expect(verifySecret('client-secret', hash, keyring.master)).toBe(true);
    expect(verifySecret('client-secreT', hash, keyring.master)).toBe(false);
    expect(verifySecret('', hash, keyring.master)).toBe(false);
  });

  it('differs between installations (pepper), so a stolen hash is useless elsewhere', () => {
    expect(hashSecret('same', keyring.master)).not.toBe(hashSecret('same', newKeyring().master));
    expect(verifySecret('same', hashSecret('same', newKeyring().master), keyring.master)).toBe(false);
  });

  it('treats malformed stored hashes as a mismatch, never an exception', () => {
    for (const bad of ['', 'plain', 'hmac-sha256..', `hmac-sha256.${keyring.master[0]!.id}.short`, 'md5.x.y']) {
      expect(verifySecret('x', bad, keyring.master)).toBe(false);
    }
  });

  it('knows when a hash was made under an older master key', () => {
    const old = newKeyring();
    const hash = hashSecret('s', old.master);
    const both = rotated(keyring, old);
    expect(verifySecret('s', hash, both.master)).toBe(true);
    expect(hashNeedsRefresh(hash, both.master)).toBe(true);
    expect(hashNeedsRefresh(hashSecret('s', both.master), both.master)).toBe(false);
  });
});

describe('keyring', () => {
  it('refuses short, non-base64 or missing keys', () => {
    expect(() => keyringFromLists('c2hvcnQ=', Buffer.alloc(32, 1).toString('base64'), 'env')).toThrow(/at least 32 bytes/);
    expect(() => keyringFromLists('not base64 at all!!!!!!!!!!!!!!!!!!!!!!!!!!!', Buffer.alloc(32, 1).toString('base64'), 'env')).toThrow();
    expect(() => keyringFromLists('', Buffer.alloc(32, 1).toString('base64'), 'env')).toThrow(/at least one key/);
  });

  it('accepts comma-separated lists, current first', () => {
    const a = Buffer.alloc(32, 1).toString('base64');
    const b = Buffer.alloc(32, 2).toString('base64');
    const keyring = keyringFromLists(`${a}, ${b}`, a, 'env');
    expect(keyring.jwt.map((k) => k.key.toString('base64'))).toEqual([a, b]);
    expect(keyring.jwt[0]!.id).not.toBe(keyring.jwt[1]!.id);
  });
});

describe('keys file', () => {
  it('is created once with mode 0600, reused afterwards, and refused once others can read it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    try {
      const file = join(dir, 'nested', 'db.keys.json');
      const first = ensureKeyringFile(file);
      expect(first.created).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const second = ensureKeyringFile(file);
      expect(second.created).toBe(false);
      expect(second.keyring.jwt[0]!.key.equals(first.keyring.jwt[0]!.key)).toBe(true);
      chmodSync(file, 0o644);
      expect(() => readKeyringFile(file)).toThrow(/readable or writable by others \(mode 0644\); run: chmod 600/);
      expect(() => readKeyringFile(join(dir, 'missing.json'))).toThrow(/cannot read keys file .*ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
