import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  newWebhookSecret, signatureHeader, signWebhook, verifyWebhook, WEBHOOK_SECRET_PREFIX, webhookSecretBytes,
} from '../../src/domain/webhook-signature.js';

// Known-answer vector published with Standard Webhooks / Svix.
const SECRET = 'whsec_plJ3nmyCDGBKInavdOK15jsl';
const ID = 'msg_loFOjxBNrRLzqYUf';
const TS = 1731705121;
const BODY = '{"event_type":"ping","data":{"success":true}}';
const SIGNATURE = 'v1,rAvfW3dJ/X/qxhsaXPOyyCGmRKsaKWcsNccKXlIktD0=';

const headers = (signature: string, timestamp = String(TS)) => ({ id: ID, timestamp, signature });

describe('webhook signatures (Standard Webhooks v1)', () => {
  it('when the published vector is signed, then the signature is exactly the published one', () => {
    expect(signWebhook(SECRET, ID, TS, BODY)).toBe(SIGNATURE);
  });

  it('when the timestamp is within ±300 s of now, then the signature is accepted', () => {
    for (const now of [TS, TS - 300, TS + 300]) expect(verifyWebhook(SECRET, headers(SIGNATURE), BODY, now)).toEqual({ ok: true });
  });

  it('when the timestamp is 301 s off, then it is refused as too old or too new', () => {
    expect(verifyWebhook(SECRET, headers(SIGNATURE), BODY, TS + 301)).toEqual({ ok: false, reason: 'too-old' });
    expect(verifyWebhook(SECRET, headers(SIGNATURE), BODY, TS - 301)).toEqual({ ok: false, reason: 'too-new' });
  });

  it('when the body differs by one byte, then the signature is refused', () => {
    expect(verifyWebhook(SECRET, headers(SIGNATURE), BODY.replace('true', 'True'), TS)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyWebhook(SECRET, headers(SIGNATURE), `${BODY} `, TS)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('when the id or timestamp differ from what was signed, then the signature is refused', () => {
    expect(verifyWebhook(SECRET, { ...headers(SIGNATURE), id: 'msg_other' }, BODY, TS)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyWebhook(SECRET, headers(SIGNATURE, String(TS + 1)), BODY, TS)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('when a secret is rotated, then a header signed with new and old verifies with either, not with a third', () => {
    const [fresh, old, other] = [newWebhookSecret(randomBytes), newWebhookSecret(randomBytes), newWebhookSecret(randomBytes)];
    const header = signatureHeader([fresh, old], ID, TS, BODY);
    expect(header.split(' ')).toHaveLength(2);
    expect(verifyWebhook(fresh, headers(header), BODY, TS)).toEqual({ ok: true });
    expect(verifyWebhook(old, headers(header), BODY, TS)).toEqual({ ok: true });
    expect(verifyWebhook(other, headers(header), BODY, TS)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('when the header has only entries of other versions, then there is no signature', () => {
    expect(verifyWebhook(SECRET, headers('v1a,xxx'), BODY, TS)).toEqual({ ok: false, reason: 'no-signature' });
    expect(verifyWebhook(SECRET, headers(''), BODY, TS)).toEqual({ ok: false, reason: 'no-signature' });
  });

  it('when other versions sit next to a good v1 entry, then they are ignored', () => {
    expect(verifyWebhook(SECRET, headers(`v1a,xxx v1,AAAA ${SIGNATURE}`), BODY, TS)).toEqual({ ok: true });
  });

  it('when the timestamp is not a decimal integer, then it is refused as such', () => {
    for (const bad of ['', '1731705121.5', '-1731705121', ' 1731705121', '0x67371c21', '1e9'])
      expect(verifyWebhook(SECRET, headers(SIGNATURE, bad), BODY, TS)).toEqual({ ok: false, reason: 'bad-timestamp' });
  });

  it('when a secret is issued, then it is whsec_ + 32 bytes and round-trips', () => {
    const secret = newWebhookSecret(randomBytes);
    expect(secret.startsWith(WEBHOOK_SECRET_PREFIX)).toBe(true);
    expect(webhookSecretBytes(secret)).toHaveLength(32);
    const fixed = Buffer.alloc(32, 7);
    expect(webhookSecretBytes(newWebhookSecret(() => fixed)).equals(fixed)).toBe(true);
  });

  it('when the published 18-byte secret is read, then it is accepted', () => {
    expect(webhookSecretBytes(SECRET)).toHaveLength(18);
  });

  it('when a secret is malformed, then reading or signing with it throws', () => {
    const good = Buffer.alloc(32, 1).toString('base64');
    for (const bad of [good, `whsec${good}`, `WHSEC_${good}`, 'whsec_', 'whsec_not base64!', `whsec_${good.slice(0, -1)}`, `whsec_${Buffer.alloc(15).toString('base64')}`]) {
      expect(() => webhookSecretBytes(bad)).toThrow(Error);
      expect(() => signWebhook(bad, ID, TS, BODY)).toThrow(Error);
    }
  });
});
