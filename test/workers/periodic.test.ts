/**
 * The periodic loop on fake timers: no test here waits on wall time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from 'pino';
import { startPeriodic, startPeriodicAll, type PassOutcome, type PeriodicWorker } from '../../src/workers/periodic.js';

/** A worker whose passes the test scripts: each pass records when it started and runs `script`. */
function scripted(overrides: Partial<PeriodicWorker>, script: (n: number) => Promise<PassOutcome> = async () => undefined) {
  const starts: number[] = [];
  const worker: PeriodicWorker = {
    name: 'test worker',
    intervalMs: 1000,
    runOnce: () => {
      starts.push(Date.now());
      return script(starts.length);
    },
    ...overrides,
  };
  return { worker, starts };
}

const errorLogger = () => {
  const errors: unknown[][] = [];
  const infos: unknown[][] = [];
  return { errors, infos, logger: { error: (...args: unknown[]) => { errors.push(args); }, info: (...args: unknown[]) => { infos.push(args); } } as unknown as Logger };
};

describe('the periodic loop', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when started, then the first pass runs at once and each next one an interval after the previous ended', async () => {
    const { worker, starts } = scripted({ intervalMs: 1000 }, () => new Promise((r) => setTimeout(r, 300)));
    const stop = startPeriodic(worker);
    await vi.advanceTimersByTimeAsync(0);
    expect(starts).toEqual([0]);
    await vi.advanceTimersByTimeAsync(3000);
    // 0–300 pass, wait 1000, 1300–1600 pass, wait 1000, 2600–2900 pass.
    expect(starts).toEqual([0, 1300, 2600]);
    await stop();
  });

  it('when a pass reports more work, then the next starts after the busy interval, and after the interval once it reports none', async () => {
    const { worker, starts } = scripted({ intervalMs: 250, busyIntervalMs: 0 }, async (n) => ({ more: n <= 3 }));
    const stop = startPeriodic(worker);
    // A zero wait is one timer turn (1 ms in Node): other I/O still gets its turn between passes.
    await vi.advanceTimersByTimeAsync(10);
    expect(starts).toEqual([0, 1, 2, 3]);
    await vi.advanceTimersByTimeAsync(600);
    expect(starts).toEqual([0, 1, 2, 3, 253, 503]);
    await stop();
  });

  it('when a pass fails, then the failure is logged with the worker name and the next pass comes after the retry interval', async () => {
    const { errors, logger } = errorLogger();
    const { worker, starts } = scripted({ intervalMs: 250, retryAfterMs: 1000 }, async (n) => {
      if (n === 1) throw new Error('database away');
    });
    const stop = startPeriodic(worker, { logger });
    await vi.advanceTimersByTimeAsync(1600);
    expect(starts).toEqual([0, 1000, 1250, 1500]);
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toMatchObject({ worker: 'test worker', retryInMs: 1000, err: expect.objectContaining({ message: 'database away' }) });
    expect(errors[0]![1]).toBe('test worker pass failed; retrying');
    await stop();
  });

  it('when a pass throws before returning a promise, then it counts as a failed pass and the loop goes on', async () => {
    const { errors, logger } = errorLogger();
    let n = 0;
    const stop = startPeriodic({ name: 'sync thrower', intervalMs: 100, runOnce: () => { n += 1; throw new Error('boom'); } }, { logger });
    await vi.advanceTimersByTimeAsync(250);
    expect(n).toBe(3);
    expect(errors).toHaveLength(1);
    await stop();
  });

  it('when passes keep failing, then the failure is logged at the start, every 30 s while it lasts, and once when a pass succeeds again', async () => {
    const { errors, infos, logger } = errorLogger();
    let away = true;
    const { worker, starts } = scripted({ intervalMs: 100 }, async () => {
      if (away) throw new Error('database away');
    });
    const stop = startPeriodic(worker, { logger });
    await vi.advanceTimersByTimeAsync(65_000);
    // 651 passes failed, each retried 100 ms later: three lines, not 651.
    expect(starts.length).toBeGreaterThan(600);
    expect(errors.map((e) => [(e[0] as { failedPasses: number }).failedPasses, e[1]])).toEqual([
      [1, 'test worker pass failed; retrying'], [301, 'test worker pass failed; retrying'], [601, 'test worker pass failed; retrying'],
    ]);
    away = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(infos).toHaveLength(1);
    expect(infos[0]![0]).toMatchObject({ worker: 'test worker', failedPasses: 651, failingMs: 65_100 });
    expect(infos[0]![1]).toBe('test worker passes succeed again');
    expect(errors).toHaveLength(3);
    await stop();
  });

  it('when a pass takes longer than the interval, then passes never overlap', async () => {
    let inPass = 0;
    let overlapped = false;
    const { worker, starts } = scripted({ intervalMs: 10, busyIntervalMs: 0 }, async () => {
      inPass += 1;
      if (inPass > 1) overlapped = true;
      await new Promise((r) => setTimeout(r, 500));
      inPass -= 1;
      return { more: true };
    });
    const stop = startPeriodic(worker);
    await vi.advanceTimersByTimeAsync(2000);
    expect(starts).toEqual([0, 501, 1002, 1503]);
    expect(overlapped).toBe(false);
    const stopping = stop();
    await vi.advanceTimersByTimeAsync(500);
    await stopping;
  });

  it('when stopped during a pass, then stop settles only once that pass has ended, and no pass follows', async () => {
    let ended = false;
    const { worker, starts } = scripted({ intervalMs: 100 }, async () => {
      await new Promise((r) => setTimeout(r, 400));
      ended = true;
    });
    const stop = startPeriodic(worker);
    await vi.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = stop().then(() => { stopped = true; });
    await vi.advanceTimersByTimeAsync(200);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await stopping;
    expect({ ended, stopped }).toEqual({ ended: true, stopped: true });
    await vi.advanceTimersByTimeAsync(5000);
    expect(starts).toEqual([0]);
  });

  it('when stopped while waiting, then it settles at once and no pass follows', async () => {
    const { worker, starts } = scripted({ intervalMs: 1000 });
    const stop = startPeriodic(worker);
    await vi.advanceTimersByTimeAsync(500);
    await stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(starts).toEqual([0]);
  });

  it('when a first delay is given, then the first pass waits for it', async () => {
    const { worker, starts } = scripted({ intervalMs: 1000 });
    const stop = startPeriodic(worker, { firstPassAfterMs: 300 });
    await vi.advanceTimersByTimeAsync(1500);
    expect(starts).toEqual([300, 1300]);
    await stop();
  });

  it('when waiting, then its timer does not keep the process alive', async () => {
    const { worker } = scripted({ intervalMs: 1000 });
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const stop = startPeriodic(worker);
    const timer = spy.mock.results[0]!.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    spy.mockRestore();
    await stop();
  });

  it('when several workers run together, then one stop ends them all', async () => {
    const a = scripted({ name: 'a', intervalMs: 100 });
    const b = scripted({ name: 'b', intervalMs: 300 });
    const stop = startPeriodicAll([a.worker, b.worker]);
    await vi.advanceTimersByTimeAsync(350);
    await stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(a.starts).toEqual([0, 100, 200, 300]);
    expect(b.starts).toEqual([0, 300]);
  });
});
