/**
 * Receiving webhooks: Standard Webhooks v1 signatures (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`), checked against the raw body
 * exactly as it arrived: parsing and re-serializing JSON before verifying breaks signatures.
 */
import { WebhookVerificationError } from './errors.js';
import { hmac, hmacKey } from './signing.js';
import type { TelematicsEvent } from './types.js';

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  /** How far the timestamp may be from now, either way; default 300 s as the spec says. */
  readonly toleranceSeconds?: number;
  /** Now, in ms (tests). */
  readonly now?: number;
}

const SECRET_PREFIX = 'whsec_';
const decoder = new TextDecoder('utf-8', { fatal: true });

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.join(', ');
}

/** Standard base64 with padding: atob() lets some junk through, so check first. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** As the service: 16 bytes at least (Svix's published test secret has 18). */
const MIN_SECRET_BYTES = 16;

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = BASE64.test(encoded) ? Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)) : new Uint8Array(0);
  if (bytes.length < MIN_SECRET_BYTES) throw new TypeError(`a webhook secret is whsec_ followed by the base64 of ${MIN_SECRET_BYTES} bytes or more, as the service answered it`);
  return bytes;
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** Compares without stopping at the first difference. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const fail = (detail: string) => new WebhookVerificationError({ detail });

export class Webhooks {
  /**
   * The event of a webhook request, once its signature and timestamp check out with one of the
   * secrets (two during a rotation). Throws WebhookVerificationError otherwise: answer it 400.
   */
  async verify(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[], options: VerifyOptions = {}): Promise<TelematicsEvent> {
    const body = await this.verifySignature(rawBody, headers, secret, options);
    return parseEvent(body, header(headers, 'webhook-id')!);
  }

  /** The body as text once the signature checks out, whatever the body holds (any Standard Webhooks sender). */
  async verifySignature(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[], options: VerifyOptions = {}): Promise<string> {
    if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
      throw fail('verify needs the raw body as received (string or bytes), not parsed JSON: read the request body as text');
    }
    const body = typeof rawBody === 'string' ? rawBody : decodeBody(rawBody);
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (id === undefined || timestamp === undefined || signatures === undefined) throw fail('missing webhook-id, webhook-timestamp or webhook-signature header');
    if (!/^\d{1,15}$/.test(timestamp)) throw fail('webhook-timestamp is not Unix seconds');
    const now = Math.floor((options.now ?? Date.now()) / 1000);
    const tolerance = options.toleranceSeconds ?? 300;
    if (!(tolerance >= 0) || !Number.isFinite(now)) throw new TypeError('toleranceSeconds and now must be finite, tolerance not negative');
    if (Number(timestamp) < now - tolerance) throw fail('webhook-timestamp too old');
    if (Number(timestamp) > now + tolerance) throw fail('webhook-timestamp too new');
    // Space-separated; a header sent twice arrives joined with ", ".
    const offered = signatures.split(/\s+/).map((entry) => entry.replace(/,$/, '')).filter((entry) => entry.startsWith('v1,'));
    if (offered.length === 0) throw fail('no v1 signature in webhook-signature');
    const secrets = typeof secret === 'string' ? [secret] : secret;
    for (const candidate of secrets) {
      const expected = `v1,${await this.#mac(candidate, id, timestamp, body)}`;
      if (offered.some((entry) => sameText(entry, expected))) return body;
    }
    throw fail('no signature matches the secret');
  }

  /** Headers the service would send for `body` (for a receiver's own tests). */
  async sign(body: string, secret: string, options: { readonly id: string; readonly timestamp?: number }): Promise<Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>> {
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    return { 'webhook-id': options.id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${await this.#mac(secret, options.id, timestamp, body)}` };
  }

  /** What to answer (with 2xx) the `webhook.verification` event, so that the endpoint is enabled. */
  verificationResponse(event: TelematicsEvent<'webhook.verification'>): { challenge: string } {
    return { challenge: event.data.challenge };
  }

  async #mac(secret: string, id: string, timestamp: string, body: string): Promise<string> {
    return base64(await hmac(await hmacKey(secretBytes(secret)), `${id}.${timestamp}.${body}`));
  }
}

function decodeBody(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw fail('body is not UTF-8');
  }
}

function parseEvent(body: string, id: string): TelematicsEvent {
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw fail('body is not JSON');
  }
  if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string') throw fail('body is not an event');
  // The body's id is the webhook-id: a body signed for another delivery is refused.
  if ((event as { id?: unknown }).id !== id) throw fail('body id differs from webhook-id');
  return event as TelematicsEvent;
}
