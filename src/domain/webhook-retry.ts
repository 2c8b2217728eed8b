/**
 * Webhook delivery retries: which answers count as delivered, when to try again, and when an
 * endpoint has failed for so long that it is disabled. Pure: the caller passes the current
 * instant (epoch ms) and the random source, and keeps the per-endpoint health between calls.
 */

/**
 * Delay before attempt n+1 is RETRY_SCHEDULE_MS[n]: immediate, 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 14 h, 20 h, 24 h — 10 attempts spread over ~75.6 h, so a receiver down for a weekend
 * still gets its events, while a brief blip is retried within seconds.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];

/** A receiver may push a retry back, but not past an hour: it must not stall the queue at will. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export type AttemptOutcome = { kind: 'success' } | { kind: 'gone' } | { kind: 'failure'; retryAfterMs?: number; reason: string };

/** Statuses whose Retry-After means "busy, come back then"; elsewhere the header is not about retries. */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * The outcome of one HTTP answer. Redirects are failures, never followed: a signed delivery
 * must reach the URL the owner registered, not wherever that URL points today. 410 says the
 * endpoint is gone for good, which the caller may treat as a request to disable it.
 */
export function classifyAnswer(status: number, retryAfter: string | undefined, nowMs: number): AttemptOutcome {
  if (status >= 200 && status <= 299) return { kind: 'success' };
  if (status === 410) return { kind: 'gone' };
  const reason = `HTTP ${status}`;
  const retryAfterMs = RETRY_AFTER_STATUSES.has(status) && retryAfter !== undefined ? parseRetryAfter(retryAfter, nowMs) : undefined;
  return retryAfterMs === undefined ? { kind: 'failure', reason } : { kind: 'failure', retryAfterMs, reason };
}

/**
 * Only the HTTP-date forms start with a day name; checking that first keeps Date.parse from
 * reading stray numbers ("-5", "1") as years.
 */
const HTTP_DATE_START = /^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s/i;

/** Retry-After (delay-seconds or HTTP-date) as ms from now, clamped to [0, MAX_RETRY_AFTER_MS]; undefined when unreadable. */
function parseRetryAfter(text: string, nowMs: number): number | undefined {
  const trimmed = text.trim();
  let delayMs: number;
  if (/^\d{1,10}$/.test(trimmed)) delayMs = Number(trimmed) * 1000;
  else if (HTTP_DATE_START.test(trimmed)) delayMs = Date.parse(trimmed) - nowMs;
  else return undefined;
  if (Number.isNaN(delayMs)) return undefined;
  return Math.min(Math.max(delayMs, 0), MAX_RETRY_AFTER_MS);
}

/**
 * When to make the next attempt after `attemptsMade` attempts all failed, or undefined when the
 * schedule is used up. ±20 % jitter keeps deliveries that failed together (one receiver outage)
 * from all coming back in the same instant; a Retry-After may delay but never hasten a retry.
 */
export function nextAttemptAt(
  attemptsMade: number,
  nowMs: number,
  random: () => number,
  retryAfterMs?: number,
  schedule: readonly number[] = RETRY_SCHEDULE_MS,
): number | undefined {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new RangeError('nextAttemptAt comes after at least one attempt');
  const delay = schedule[attemptsMade];
  if (delay === undefined) return undefined;
  const jittered = Math.round(delay * (0.8 + 0.4 * random()));
  return nowMs + Math.max(jittered, retryAfterMs ?? 0);
}

/** Per endpoint: since when every delivery has failed, or null while it is answering. */
export interface EndpointHealth {
  readonly failingSince: number | null;
}

/** Health after one outcome: a single success clears the streak; a failure keeps its first instant. */
export function healthAfter(health: EndpointHealth, outcome: 'success' | 'failure', nowMs: number): EndpointHealth {
  if (outcome === 'success') return { failingSince: null };
  return { failingSince: health.failingSince ?? nowMs };
}

/**
 * Disable by time, not by count: a burst of failures in a short outage must not disable an
 * endpoint, only one that has not succeeded at all for `disableAfterMs`.
 */
export function shouldDisable(health: EndpointHealth, nowMs: number, disableAfterMs: number): boolean {
  return health.failingSince !== null && nowMs - health.failingSince >= disableAfterMs;
}

/** What came back from one post: an HTTP status and its Retry-After, or, when none came, the kind of failure. */
export interface AttemptAnswer {
  readonly status: number | undefined;
  readonly retryAfter: string | undefined;
  readonly error: string | undefined;
}

/** What one attempt's end makes of its delivery, and what it says of the endpoint. */
export interface AttemptSettlement {
  readonly status: 'succeeded' | 'pending' | 'failed';
  /** When the next attempt is due; the attempt's own instant when there is none. */
  readonly nextAttemptAt: number;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly health: 'success' | 'failure' | 'gone';
}

/**
 * The outcome of attempt number `attempts` (1 for the first) at `at`: a 2xx succeeded; a 410
 * failed for good (the endpoint is gone); anything else, and no answer at all, is retried on the
 * schedule until it is used up, except a refused address, which will not be allowed later.
 */
export function settleAttempt(answer: AttemptAnswer, attempts: number, at: number, random: () => number): AttemptSettlement {
  if (answer.status === undefined) {
    const next = answer.error === 'refused' ? undefined : nextAttemptAt(attempts, at, random);
    return { status: next === undefined ? 'failed' : 'pending', nextAttemptAt: next ?? at, lastStatus: null, lastError: answer.error ?? 'connection', health: 'failure' };
  }
  const outcome = classifyAnswer(answer.status, answer.retryAfter, at);
  if (outcome.kind === 'success') return { status: 'succeeded', nextAttemptAt: at, lastStatus: answer.status, lastError: null, health: 'success' };
  if (outcome.kind === 'gone') return { status: 'failed', nextAttemptAt: at, lastStatus: answer.status, lastError: 'gone', health: 'gone' };
  const next = nextAttemptAt(attempts, at, random, outcome.retryAfterMs);
  return { status: next === undefined ? 'failed' : 'pending', nextAttemptAt: next ?? at, lastStatus: answer.status, lastError: outcome.reason, health: 'failure' };
}
