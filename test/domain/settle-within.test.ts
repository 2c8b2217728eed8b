import { describe, expect, it } from 'vitest';
import { settleWithin } from '../../src/domain/settle-within.js';

describe('settleWithin', () => {
  it('when the promise fulfils in time, then its value', async () => {
    expect(await settleWithin(Promise.resolve(7), 1000, 'late')).toBe(7);
  });

  it('when the promise rejects, then the fallback, and nothing is left unhandled', async () => {
    expect(await settleWithin(Promise.reject(new Error('refused')), 1000, false)).toBe(false);
  });

  it('when the promise hangs, then the fallback after about the time given', async () => {
    const started = Date.now();
    expect(await settleWithin(new Promise(() => {}), 50, undefined)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
