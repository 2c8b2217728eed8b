import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEventCursor, encodeEventCursor } from '../../src/domain/event-cursor.js';

describe('the event cursor', () => {
  it('when any position is encoded, then it decodes to the same position', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (p) => decodeEventCursor(encodeEventCursor(p)) === p));
  });

  it('when a cursor is altered in any way, then it decodes to nothing or to a cursor spelled exactly so', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e12 }), fc.string({ maxLength: 40 }), (p, noise) => {
      const text = encodeEventCursor(p) + noise;
      const decoded = decodeEventCursor(text);
      return decoded === undefined || encodeEventCursor(decoded) === text;
    }));
  });

  it('when a text is not one this service made, then it is refused', () => {
    for (const text of ['', 'ev1.', 'ev1.=', 'ev2.MQ', '1', 'ev1.LTE', `ev1.${Buffer.from('1.5').toString('base64url')}`, `ev1.${Buffer.from('01').toString('base64url')}`,
      `ev1.${Buffer.from('zzzzzzzzzzzz').toString('base64url')}`, `ev1.${'A'.repeat(100)}`]) {
      expect(decodeEventCursor(text), text).toBeUndefined();
    }
  });
});
