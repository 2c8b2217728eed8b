/**
 * X-Signature of POST /vehicle-command: hex HMAC-SHA256, keyed with the application's sign-secret,
 * of the canonical body `{"command":…,"vin":…}` (keys sorted, no spaces, non-ASCII as \uXXXX,
 * what Python's json.dumps(sort_keys=True, separators=(",", ":")) writes). `code` is never signed.
 * WebCrypto, so it runs wherever fetch does. The test suite checks this against the service's own.
 */
const encoder = new TextEncoder();

const escapeNonAscii = (json: string) => json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function canonicalCommandBody(vin: string, command: string): string {
  return escapeNonAscii(`{"command":${JSON.stringify(command)},"vin":${JSON.stringify(vin)}}`);
}

/** @internal */
export const hmacKey = (secret: Uint8Array<ArrayBuffer> | string, usages: KeyUsage[] = ['sign']): Promise<CryptoKey> =>
  crypto.subtle.importKey('raw', typeof secret === 'string' ? encoder.encode(secret) : secret, { name: 'HMAC', hash: 'SHA-256' }, false, usages);

/** @internal */
export async function hmac(key: CryptoKey, text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** @internal Signs commands with one sign-secret; the imported key is kept for the next command. */
export class CommandSigner {
  #key: Promise<CryptoKey> | undefined;

  constructor(private readonly signSecret: string) {}

  async sign(vin: string, command: string): Promise<string> {
    this.#key ??= hmacKey(this.signSecret);
    return hex(await hmac(await this.#key, canonicalCommandBody(vin, command)));
  }
}
