/** The ignition interlock's rule (domain/movement-window.ts): which records of a connection decide. */
import { describe, expect, it } from 'vitest';
import { judgeMovement, MOTION_CLOCK_SKEW_MS, MOTION_LIVE_LAG_MS, samplesStillUseful, type MotionSample } from '../../src/domain/movement-window.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const MIN = 60_000;
/** A record taken `agoMs` before NOW and received at NOW. */
const at = (agoMs: number, speed: number | null, receivedAt = NOW): MotionSample => ({ deviceTime: NOW - agoMs, receivedAt, speed });
const THRESHOLD = 3;

describe('judgeMovement', () => {
  it('when the connection has received no record, then movement is unknown', () => {
    expect(judgeMovement([], THRESHOLD)).toBe('unknown');
  });

  it('when a record is dated ahead of the service clock it arrived by, then it is ignored, standing still or not', () => {
    expect(judgeMovement([at(1000, 90), at(-4 * MIN, 0)], THRESHOLD)).toBe('moving');
    expect(judgeMovement([at(1000, 0), at(-4 * MIN, 150)], THRESHOLD)).toBe('standing');
    expect(judgeMovement([at(-4 * MIN, 0)], THRESHOLD)).toBe('unknown');
  });

  it('when a record is ahead by no more than the clock skew allowed, then it counts', () => {
    expect(judgeMovement([at(-MOTION_CLOCK_SKEW_MS, 40)], THRESHOLD)).toBe('moving');
    expect(judgeMovement([at(-MOTION_CLOCK_SKEW_MS - 1, 40)], THRESHOLD)).toBe('unknown');
  });

  it('when the newest record stands still but another in its 2 minutes moves, then the highest speed wins: moving', () => {
    expect(judgeMovement([at(119_000, 90), at(0, 0)], THRESHOLD)).toBe('moving');
    expect(judgeMovement([at(0, 0), at(30_000, 0), at(60_000, 4)], THRESHOLD)).toBe('moving');
  });

  it('when the moving records are more than 2 minutes older than the newest, then they fall out: standing', () => {
    expect(judgeMovement([at(121_000, 90), at(60_000, 0), at(0, 0)], THRESHOLD)).toBe('standing');
  });

  it('when the window\'s highest speed is at the threshold, then the vehicle stands (moving is faster than it)', () => {
    expect(judgeMovement([at(0, THRESHOLD)], THRESHOLD)).toBe('standing');
  });

  it('when the newest records have no speed (no fix) and the last speed is recent, then that speed still decides (a tunnel)', () => {
    expect(judgeMovement([at(5 * MIN, 80), at(2 * MIN, null), at(0, null)], THRESHOLD)).toBe('moving');
  });

  it('when the last speed is more than 10 minutes older than the newest record, then the vehicle is standing (a garage without a fix)', () => {
    expect(judgeMovement([at(11 * MIN, 80), at(0, null)], THRESHOLD)).toBe('standing');
    expect(judgeMovement([at(0, null)], THRESHOLD)).toBe('standing');
  });

  it('when the newest record is hours old, then the window is anchored there, not at the clock: a parked tracker still takes commands', () => {
    expect(judgeMovement([at(3 * 60 * MIN, 0, NOW - 3 * 60 * MIN)], THRESHOLD)).toBe('standing');
    expect(judgeMovement([at(3 * 60 * MIN, 70, NOW - 3 * 60 * MIN)], THRESHOLD)).toBe('moving');
  });

  it('when the newest record was taken over 5 minutes before it arrived (a backlog after a reconnect), then movement is unknown until the tracker catches up', () => {
    // Parked records from an hour ago arrive now; the vehicle may have driven off since.
    const backlog = [at(62 * MIN, 0), at(61 * MIN, 0), at(60 * MIN, 0)];
    expect(judgeMovement(backlog, THRESHOLD)).toBe('unknown');
    expect(judgeMovement([...backlog.map((s) => ({ ...s, speed: 80 }))], THRESHOLD)).toBe('unknown');
    expect(judgeMovement([at(MOTION_LIVE_LAG_MS, 0)], THRESHOLD)).toBe('standing');
    expect(judgeMovement([at(MOTION_LIVE_LAG_MS + 1, 0)], THRESHOLD)).toBe('unknown');
    // Caught up: the live records decide, the backlog's fall out of the window.
    expect(judgeMovement([...backlog, at(1000, 0), at(0, 0)], THRESHOLD)).toBe('standing');
    expect(judgeMovement([...backlog, at(0, 70)], THRESHOLD)).toBe('moving');
  });

  it('when records arrive out of order, then the order does not change the verdict', () => {
    const samples = [at(0, 0), at(90_000, 50), at(200_000, 0), at(30_000, 0)];
    expect(judgeMovement(samples, THRESHOLD)).toBe('moving');
    expect(judgeMovement([...samples].reverse(), THRESHOLD)).toBe('moving');
  });
});

describe('samplesStillUseful', () => {
  it('when samples are dated ahead or older than any judgement reads, then they are dropped, and at most max are kept (the newest)', () => {
    const kept = samplesStillUseful([at(-10 * MIN, 0), at(13 * MIN, 90), at(11 * MIN, 80), at(1000, 0), at(0, 0)], 10);
    expect(kept.map((s) => NOW - s.deviceTime).sort((a, b) => a - b)).toEqual([0, 1000, 11 * MIN]);
    expect(samplesStillUseful([at(3000, 1), at(2000, 2), at(1000, 3)], 2).map((s) => s.speed)).toEqual([2, 3]);
  });

  it('when samples are pruned, then the verdict is the same as on all of them', () => {
    const samples = Array.from({ length: 900 }, (_, i) => at(i * 1000, i % 97 === 0 ? 60 : 0));
    expect(judgeMovement(samplesStillUseful(samples, 2048), THRESHOLD)).toBe(judgeMovement(samples, THRESHOLD));
  });
});
