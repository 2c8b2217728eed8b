import { describe, expect, it } from 'vitest';
import { WriteGathering } from '../../src/workers/write-gathering.js';

/** The turn of the event loop each arrival was released in (a counter bumped by setImmediate). */
function turns() {
  let turn = 0;
  let running = true;
  const tick = () => { turn += 1; if (running) setImmediate(tick); };
  setImmediate(tick);
  return { now: () => turn, stop: () => { running = false; } };
}

describe('WriteGathering', () => {
  it('when every task expected arrives, then all are released in one turn, however far apart they came', async () => {
    const gathering = new WriteGathering(3, 10_000);
    const clock = turns();
    const released: number[] = [];
    const tasks = [0, 5, 20].map(async (delay) => {
      await new Promise((r) => setTimeout(r, delay));
      await gathering.arrive();
      released.push(clock.now());
    });
    await Promise.all(tasks);
    clock.stop();
    expect(released).toHaveLength(3);
    expect(new Set(released).size).toBe(1);
  });

  it('when a task never arrives, then the others are released the window after the first arrived, and later ones form a group of their own', async () => {
    const gathering = new WriteGathering(4, 30);
    const started = Date.now();
    const first = await Promise.all([gathering.arrive(), gathering.arrive()].map(async (p) => { await p; return Date.now() - started; }));
    for (const waited of first) expect(waited).toBeGreaterThanOrEqual(25);
    const second = Date.now();
    await gathering.arrive();
    // One of the four never arrives, so the third waits a window of its own.
    expect(Date.now() - second).toBeGreaterThanOrEqual(25);
  });

  it('when nothing is expected beyond an arrival, then it is released at once', async () => {
    const gathering = new WriteGathering(1, 60_000);
    const started = Date.now();
    await gathering.arrive();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
