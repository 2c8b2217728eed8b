/**
 * The stream window decides how far an endpoint's position may move: never past an event whose
 * first attempt has not ended, whatever order attempts end in (a property test against a model
 * that recomputes the answer from scratch).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/domain/time-ordered-id.js';
import { StreamWindow } from '../../src/webhooks/dispatch/stream-window.js';

describe('stream window', () => {
  it('when nothing kept was read, then the frontier is the read position', () => {
    const window = new StreamWindow(10);
    window.readThrough(25, []);
    expect(window.frontier()).toBe(25);
  });

  it('when attempts end out of order, then the frontier stops before the first that has not ended', () => {
    const window = new StreamWindow(0);
    window.readThrough(9, [2, 5, 7]);
    expect(window.frontier()).toBe(1);
    window.finish(5);
    expect(window.frontier()).toBe(1);
    window.finish(2);
    expect(window.frontier()).toBe(6);
    window.finish(7);
    expect(window.frontier()).toBe(9);
  });

  it('when reads and endings interleave at random, then the frontier is always the highest position with nothing open at or before it', () => {
    for (let seed = 1; seed <= 100; seed += 1) {
      let state = seed;
      const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
      const window = new StreamWindow(0);
      let read = 0;
      const open = new Set<number>();
      for (let step = 0; step < 600; step += 1) {
        if (random() < 0.25) {
          const kept: number[] = [];
          const through = read + 1 + Math.floor(random() * 8);
          for (let p = read + 1; p <= through; p += 1) if (random() < 0.5) kept.push(p);
          window.readThrough(through, kept);
          for (const p of kept) open.add(p);
          read = through;
        } else if (open.size > 0) {
          const pending = [...open];
          const done = pending[Math.floor(random() * pending.length)]!;
          open.delete(done);
          window.finish(done);
        }
        const expected = open.size === 0 ? read : Math.min(...open) - 1;
        expect(window.frontier()).toBe(expected);
      }
    }
  });
});

describe('time-ordered ids', () => {
  it('when made later, then they sort later, and they are version-7 UUIDs', () => {
    const ids = [1, 2, 1_795_000_000_000, 1_795_000_000_001].map((t) => timeOrderedId(t, randomUUID));
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOrderedId(1_795_000_000_000, () => '00000000-0000-4000-8000-000000000000')).toBe('01a1ee56-5e00-7000-8000-000000000000');
  });
});
