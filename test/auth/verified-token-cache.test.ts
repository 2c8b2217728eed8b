import { describe, expect, it } from 'vitest';
import { VerifiedTokenCache } from '../../src/auth/verified-token-cache.js';

const claims = (expiresAt: number) => ({ clientId: 'c', applicationId: 'a', companyId: 'co', credentialsVersion: 1, expiresAt });

describe('verified token cache', () => {
  it('when a token is looked up before its exp second, then its claims come back; from that second on, never', () => {
    const cache = new VerifiedTokenCache();
    cache.set('t', claims(60_000));
    expect(cache.get('t', 59_999)?.applicationId).toBe('a');
    expect(cache.get('t', 60_000)).toBeUndefined();
    expect(cache.size).toBe(0); // an expired entry is dropped, not kept
  });

  it('when a lookup falls within the exp second (jose compares whole seconds), then it is already refused', () => {
    const cache = new VerifiedTokenCache();
    cache.set('t', claims(60_000));
    expect(cache.get('t', 60_500)).toBeUndefined();
  });

  it('when the cache is full, then the oldest token makes room and the size never passes the bound', () => {
    const cache = new VerifiedTokenCache(3);
    for (const t of ['a', 'b', 'c', 'd']) cache.set(t, claims(1e15));
    expect(cache.size).toBe(3);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.get('d', 0)).toBeDefined();
    cache.set('d', claims(1e15)); // an existing entry replaces itself, evicting nothing
    expect(cache.get('b', 0)).toBeDefined();
  });

  it('when a token differs by one character, then it misses', () => {
    const cache = new VerifiedTokenCache();
    cache.set('header.payload.signature', claims(1e15));
    expect(cache.get('header.payload.signaturE', 0)).toBeUndefined();
  });
});
