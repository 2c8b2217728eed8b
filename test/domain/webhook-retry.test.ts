import { describe, expect, it } from 'vitest';
import {
  classifyAnswer, healthAfter, MAX_RETRY_AFTER_MS, nextAttemptAt, RETRY_SCHEDULE_MS, settleAttempt, shouldDisable, type EndpointHealth,
} from '../../src/domain/webhook-retry.js';

const T0 = Date.UTC(2025, 0, 6, 12, 0, 0);
const HOUR = 3_600_000;
const middle = () => 0.5;

describe('retry schedule', () => {
  it('when all delays are added up, then the last attempt is 75 h 35 min 5 s after the first', () => {
    expect(RETRY_SCHEDULE_MS).toHaveLength(10);
    expect(RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0)).toBe(272_105_000);
    expect(272_105_000).toBe(((75 * 60 + 35) * 60 + 5) * 1000);
  });

  it('when random() is 0.5, then every attempt lands exactly on the schedule and the 10th is the last', () => {
    let at = T0;
    for (let made = 1; made < 10; made += 1) {
      const next = nextAttemptAt(made, at, middle);
      expect(next).toBe(at + RETRY_SCHEDULE_MS[made]!);
      at = next!;
    }
    expect(at - T0).toBe(272_105_000);
    expect(nextAttemptAt(10, at, middle)).toBeUndefined();
    expect(nextAttemptAt(11, at, middle)).toBeUndefined();
  });

  it('when random() is at its extremes, then the delay stays within ±20 %', () => {
    for (let made = 1; made < 10; made += 1) {
      const delay = RETRY_SCHEDULE_MS[made]!;
      for (const r of [0, 0.25, 0.75, 0.999_999, 1]) {
        const wait = nextAttemptAt(made, T0, () => r)! - T0;
        expect(Number.isInteger(wait)).toBe(true);
        expect(wait).toBeGreaterThanOrEqual(Math.round(delay * 0.8));
        expect(wait).toBeLessThanOrEqual(Math.round(delay * 1.2));
      }
      expect(nextAttemptAt(made, T0, () => 0)! - T0).toBe(Math.round(delay * 0.8));
      expect(nextAttemptAt(made, T0, () => 1)! - T0).toBe(Math.round(delay * 1.2));
    }
  });

  it('when no attempt has been made, then asking for the next is a programming error', () => {
    expect(() => nextAttemptAt(0, T0, middle)).toThrow(RangeError);
  });

  it('when a custom schedule is given, then it is used and exhausted by its own length', () => {
    expect(nextAttemptAt(1, T0, middle, undefined, [0, 1000])).toBe(T0 + 1000);
    expect(nextAttemptAt(2, T0, middle, undefined, [0, 1000])).toBeUndefined();
  });
});

describe('Retry-After', () => {
  it('when Retry-After asks for later than the schedule, then it wins', () => {
    // After attempt 2 the schedule says 5 min; the receiver asks for 20.
    const outcome = classifyAnswer(429, '1200', T0);
    expect(outcome).toEqual({ kind: 'failure', reason: 'HTTP 429', retryAfterMs: 1_200_000 });
    expect(nextAttemptAt(2, T0, middle, 1_200_000)).toBe(T0 + 1_200_000);
  });

  it('when Retry-After asks for sooner than the schedule, then it does not shorten the wait', () => {
    expect(classifyAnswer(503, '1', T0)).toEqual({ kind: 'failure', reason: 'HTTP 503', retryAfterMs: 1000 });
    expect(nextAttemptAt(3, T0, middle, 1000)).toBe(T0 + 1_800_000);
  });

  it('when Retry-After asks for more than an hour, then it is capped at one hour', () => {
    expect(classifyAnswer(429, '86400', T0)).toMatchObject({ retryAfterMs: MAX_RETRY_AFTER_MS });
    expect(classifyAnswer(503, new Date(T0 + 5 * HOUR).toUTCString(), T0)).toMatchObject({ retryAfterMs: MAX_RETRY_AFTER_MS });
  });

  it('when Retry-After is an HTTP-date, then it counts from now, and a past date means now', () => {
    expect(classifyAnswer(503, new Date(T0 + 90_000).toUTCString(), T0)).toMatchObject({ retryAfterMs: 90_000 });
    expect(classifyAnswer(429, 'Mon, 06 Jan 2025 12:10:00 GMT', T0)).toMatchObject({ retryAfterMs: 600_000 });
    expect(classifyAnswer(429, new Date(T0 - 90_000).toUTCString(), T0)).toMatchObject({ retryAfterMs: 0 });
  });

  it('when Retry-After is garbage, then it is ignored', () => {
    for (const garbage of ['soon', '', '-5', '1.5', '5 minutes', 'Mon, garbage', '2025-01-06T12:10:00Z']) {
      const outcome = classifyAnswer(429, garbage, T0);
      expect(outcome).toEqual({ kind: 'failure', reason: 'HTTP 429' });
      expect(outcome).not.toHaveProperty('retryAfterMs');
    }
  });

  it('when Retry-After comes with a status other than 429 or 503, then it is ignored', () => {
    for (const status of [500, 502, 301, 400]) expect(classifyAnswer(status, '60', T0)).toEqual({ kind: 'failure', reason: `HTTP ${status}` });
  });
});

describe('classifyAnswer', () => {
  it.each([
    [200, { kind: 'success' }],
    [204, { kind: 'success' }],
    [299, { kind: 'success' }],
    [301, { kind: 'failure', reason: 'HTTP 301' }],
    [302, { kind: 'failure', reason: 'HTTP 302' }],
    [400, { kind: 'failure', reason: 'HTTP 400' }],
    [404, { kind: 'failure', reason: 'HTTP 404' }],
    [410, { kind: 'gone' }],
    [429, { kind: 'failure', reason: 'HTTP 429' }],
    [500, { kind: 'failure', reason: 'HTTP 500' }],
    [503, { kind: 'failure', reason: 'HTTP 503' }],
  ])('when the answer is %i without Retry-After, then the outcome is %j', (status, expected) => {
    expect(classifyAnswer(status, undefined, T0)).toEqual(expected);
  });
});

describe('endpoint health', () => {
  const healthy: EndpointHealth = { failingSince: null };
  const fail = (h: EndpointHealth, at: number) => healthAfter(h, 'failure', at);

  it('when failures follow each other, then the first instant is kept; a success resets it', () => {
    const failing = fail(fail(fail(healthy, T0), T0 + HOUR), T0 + 2 * HOUR);
    expect(failing).toEqual({ failingSince: T0 });
    expect(healthAfter(failing, 'success', T0 + 3 * HOUR)).toEqual({ failingSince: null });
    expect(healthAfter(healthy, 'success', T0)).toEqual({ failingSince: null });
  });

  it('when an endpoint has failed for 119 h, then it stays enabled; at 120 h it is disabled', () => {
    const failing = fail(healthy, T0);
    expect(shouldDisable(failing, T0 + 119 * HOUR, 120 * HOUR)).toBe(false);
    expect(shouldDisable(failing, T0 + 120 * HOUR, 120 * HOUR)).toBe(true);
    expect(shouldDisable(healthy, T0 + 1000 * HOUR, 120 * HOUR)).toBe(false);
  });

  it('when 50 failures come in one hour and then a success, then the endpoint is never disabled', () => {
    let health = healthy;
    for (let i = 0; i < 50; i += 1) {
      health = fail(health, T0 + i * 72_000);
      expect(shouldDisable(health, T0 + i * 72_000, 120 * HOUR)).toBe(false);
    }
    health = healthAfter(health, 'success', T0 + HOUR);
    for (const later of [HOUR, 120 * HOUR, 1000 * HOUR]) expect(shouldDisable(health, T0 + later, 120 * HOUR)).toBe(false);
  });
});

describe('settleAttempt', () => {
  const answered = (status: number, retryAfter?: string) => ({ status, retryAfter, error: undefined });
  const unanswered = (error: string | undefined) => ({ status: undefined, retryAfter: undefined, error });

  it('when the receiver answers 2xx, then the delivery succeeded and the endpoint is healthy', () => {
    for (const status of [200, 204, 299]) {
      expect(settleAttempt(answered(status), 3, T0, middle)).toEqual({ status: 'succeeded', nextAttemptAt: T0, lastStatus: status, lastError: null, health: 'success' });
    }
  });

  it('when the receiver answers 410, then the delivery failed for good and the endpoint is gone, however many attempts are left', () => {
    expect(settleAttempt(answered(410, '60'), 1, T0, middle)).toEqual({ status: 'failed', nextAttemptAt: T0, lastStatus: 410, lastError: 'gone', health: 'gone' });
  });

  it('when the receiver answers another status, then the next attempt follows the schedule with the status as the reason', () => {
    expect(settleAttempt(answered(500), 2, T0, middle)).toEqual({ status: 'pending', nextAttemptAt: T0 + RETRY_SCHEDULE_MS[2]!, lastStatus: 500, lastError: 'HTTP 500', health: 'failure' });
    expect(settleAttempt(answered(302), 1, T0, () => 0)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + Math.round(RETRY_SCHEDULE_MS[1]! * 0.8), lastError: 'HTTP 302' });
  });

  it('when a 429 or 503 asks for later than the schedule, then the next attempt waits that long', () => {
    expect(settleAttempt(answered(429, '1200'), 2, T0, middle)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 1_200_000, lastStatus: 429, lastError: 'HTTP 429' });
    expect(settleAttempt(answered(503, '1'), 3, T0, middle)).toMatchObject({ nextAttemptAt: T0 + RETRY_SCHEDULE_MS[3]! });
  });

  it('when the schedule is used up, then the delivery failed, due at the attempt itself', () => {
    expect(settleAttempt(answered(500), RETRY_SCHEDULE_MS.length, T0, middle)).toEqual({ status: 'failed', nextAttemptAt: T0, lastStatus: 500, lastError: 'HTTP 500', health: 'failure' });
    expect(settleAttempt(unanswered('timeout'), RETRY_SCHEDULE_MS.length, T0, middle)).toMatchObject({ status: 'failed', nextAttemptAt: T0, lastError: 'timeout' });
  });

  it('when no answer came, then it is retried with its kind as the reason, a connection failure when none is known', () => {
    expect(settleAttempt(unanswered('timeout'), 1, T0, middle)).toEqual({ status: 'pending', nextAttemptAt: T0 + RETRY_SCHEDULE_MS[1]!, lastStatus: null, lastError: 'timeout', health: 'failure' });
    expect(settleAttempt(unanswered(undefined), 1, T0, middle)).toMatchObject({ status: 'pending', lastError: 'connection', health: 'failure' });
  });

  it('when the address was refused, then it is not retried: it will not be allowed later', () => {
    expect(settleAttempt(unanswered('refused'), 1, T0, middle)).toEqual({ status: 'failed', nextAttemptAt: T0, lastStatus: null, lastError: 'refused', health: 'failure' });
  });
});
