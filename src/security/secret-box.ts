/**
 * AES-256-GCM encryption of secrets the service must read back in clear (sign-secrets: HMAC needs
 * them). The additional data binds a ciphertext to its owner and purpose, so a ciphertext copied
 * onto another row does not decrypt. Format: `v1.<master key id>.<iv b64url>.<ciphertext+tag b64url>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { currentKey, deriveKey, type SecretKey } from './keyring.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PURPOSE = 'secret-box';

export function sealSecret(plaintext: string, aad: string, masterKeys: readonly SecretKey[]): string {
  const master = currentKey(masterKeys);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(master, PURPOSE), iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.${master.id}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** Throws when the box is malformed, its key is unknown, or it was not sealed for this `aad`. */
export function openSecret(sealed: string, aad: string, masterKeys: readonly SecretKey[]): string {
  const [version, keyId, ivText, bodyText, ...rest] = sealed.split('.');
  if (version !== 'v1' || !keyId || !ivText || !bodyText || rest.length > 0) throw new Error('malformed sealed secret');
  const master = masterKeys.find((k) => k.id === keyId);
  if (!master) throw new Error(`sealed secret uses unknown master key "${keyId}"`);
  const iv = Buffer.from(ivText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new Error('malformed sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(master, PURPOSE), iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
}

export function sealedKeyId(sealed: string): string | undefined {
  return sealed.split('.')[1];
}
