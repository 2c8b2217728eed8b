import { describe, expect, it } from 'vitest';
import { parseRate, RateLimiter, retryAfterSeconds } from '../../src/domain/rate-limit.js';

describe('RateLimiter (GCRA)', () => {
  it('when a key bursts, then `limit` requests pass and the next waits one interval', () => {
    const limiter = new RateLimiter({ limit: 5, windowMs: 60_000 });
    for (let i = 0; i < 5; i += 1) expect(limiter.take('a', 1000)).toBe(0);
    expect(limiter.take('a', 1000)).toBe(12_000);
    expect(limiter.take('a', 12_999)).toBe(1);
    expect(limiter.take('a', 13_000)).toBe(0);
    expect(limiter.take('a', 13_000)).toBe(12_000);
  });

  it('when requests are refused, then they cost nothing: waiting as told gets through', () => {
    const limiter = new RateLimiter({ limit: 2, windowMs: 10_000 });
    limiter.take('a', 0);
    limiter.take('a', 0);
    for (let t = 0; t < 5000; t += 100) expect(limiter.take('a', t)).toBe(5000 - t);
    expect(limiter.take('a', 5000)).toBe(0);
  });

  it('when a steady client stays at the rate, then it is never refused', () => {
    const limiter = new RateLimiter({ limit: 60, windowMs: 60_000 });
    for (let t = 0; t < 600_000; t += 1000) expect(limiter.take('steady', t)).toBe(0);
  });

  it('when keys differ, then each has its own allowance', () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 60_000 });
    expect(limiter.take('a', 0)).toBe(0);
    expect(limiter.take('a', 0)).toBeGreaterThan(0);
    expect(limiter.take('b', 0)).toBe(0);
  });

  it('when more keys than the bound arrive, then memory stays bounded and idle keys go first', () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 1000 }, 100);
    for (let i = 0; i < 1000; i += 1) limiter.take(`k${i}`, i * 10);
    expect(limiter.size).toBeLessThanOrEqual(100);
    // The most recent key is still remembered (and limited).
    expect(limiter.take('k999', 9990)).toBeGreaterThan(0);
  });

  it('when built with a nonsense rate, then it refuses', () => {
    expect(() => new RateLimiter({ limit: 0, windowMs: 1000 })).toThrow(RangeError);
    expect(() => new RateLimiter({ limit: 1, windowMs: 0 })).toThrow(RangeError);
  });
});

describe('parseRate', () => {
  it.each([
    ['20/1m', { limit: 20, windowMs: 60_000 }],
    ['20/m', { limit: 20, windowMs: 60_000 }],
    ['5/30s', { limit: 5, windowMs: 30_000 }],
    [' 1000 / 1h ', { limit: 1000, windowMs: 3_600_000 }],
    ['100/1d', { limit: 100, windowMs: 86_400_000 }],
    ['0', null],
    ['off', null],
  ])('reads %j', (text, rate) => {
    expect(parseRate(text)).toEqual(rate);
  });

  it.each(['', '20', '20/', '/1m', '0/1m', '20/0s', '-1/1m', '1.5/1m', '20/1w', '20 per minute', '1/500ms'])('refuses %j', (text) => {
    expect(parseRate(text)).toBeUndefined();
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
  });
});
