/**
 * The service's own keys: JWT signing keys (HS256, by `kid`) and master keys (AES-256-GCM for
 * sign-secrets, and the pepper of client-secret hashes, by id). The first key of each list is the
 * current one; the others stay valid for verification and decryption so keys can be rotated.
 */
import { createHash, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface Keyring {
  readonly jwt: readonly SecretKey[];
  readonly master: readonly SecretKey[];
}

/** The serialized form, as in a keys file or the environment. Keys are base64 of 32 random bytes. */
export interface KeyringDocument {
  readonly jwt: readonly { readonly kid: string; readonly secret: string }[];
  readonly master: readonly { readonly id: string; readonly key: string }[];
}

export const KEY_BYTES = 32;

function decodeKey(text: unknown, where: string): Buffer {
  if (typeof text !== 'string') throw new Error(`${where}: key must be a base64 string`);
  const key = Buffer.from(text, 'base64');
  if (key.length < KEY_BYTES || key.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, '')) {
    throw new Error(`${where}: key must be base64 of at least ${KEY_BYTES} bytes`);
  }
  return key;
}

/** A short stable id for a key, so a key given without one still gets a `kid`. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 12);
}

export function keyringFromDocument(doc: unknown, where: string): Keyring {
  if (typeof doc !== 'object' || doc === null) throw new Error(`${where}: expected an object with "jwt" and "master"`);
  const { jwt, master } = doc as Record<string, unknown>;
  if (!Array.isArray(jwt) || jwt.length === 0) throw new Error(`${where}: "jwt" must list at least one key`);
  if (!Array.isArray(master) || master.length === 0) throw new Error(`${where}: "master" must list at least one key`);
  const jwtKeys = jwt.map((k: Record<string, unknown>, i) => {
    const key = decodeKey(k?.secret, `${where}: jwt[${i}].secret`);
    return { id: typeof k.kid === 'string' && k.kid !== '' ? k.kid : keyId(key), key };
  });
  const masterKeys = master.map((k: Record<string, unknown>, i) => {
    const key = decodeKey(k?.key, `${where}: master[${i}].key`);
    return { id: typeof k.id === 'string' && k.id !== '' ? k.id : keyId(key), key };
  });
  for (const [name, keys] of [['jwt', jwtKeys], ['master', masterKeys]] as const) {
    if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error(`${where}: "${name}" key ids must be unique`);
  }
  return Object.freeze({ jwt: Object.freeze(jwtKeys), master: Object.freeze(masterKeys) });
}

/** Keys from comma-separated base64 lists, current first (the environment form). */
export function keyringFromLists(jwtList: string, masterList: string, where: string): Keyring {
  const split = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
  return keyringFromDocument(
    { jwt: split(jwtList).map((secret) => ({ secret })), master: split(masterList).map((key) => ({ key })) },
    where,
  );
}

export function generateKeyringDocument(): KeyringDocument {
  const jwt = randomBytes(KEY_BYTES);
  const master = randomBytes(KEY_BYTES);
  return {
    jwt: [{ kid: keyId(jwt), secret: jwt.toString('base64') }],
    master: [{ id: keyId(master), key: master.toString('base64') }],
  };
}

export function currentKey(keys: readonly SecretKey[]): SecretKey {
  const key = keys[0];
  if (!key) throw new Error('keyring has no current key');
  return key;
}

const derivedKeys = new WeakMap<SecretKey, Map<string, Buffer>>();

/**
 * A sub-key for one purpose, so one master key never serves two algorithms directly. HKDF is
 * deterministic, so each (key, purpose) is derived once per process; callers must not modify it.
 */
export function deriveKey(master: SecretKey, purpose: string): Buffer {
  let byPurpose = derivedKeys.get(master);
  if (!byPurpose) derivedKeys.set(master, (byPurpose = new Map()));
  let key = byPurpose.get(purpose);
  if (!key) byPurpose.set(purpose, (key = Buffer.from(hkdfSync('sha256', master.key, Buffer.alloc(0), `telematics:${purpose}`, KEY_BYTES))));
  return key;
}
