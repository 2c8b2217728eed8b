/** The source of "now" for every rule that depends on time; tests pass a controllable one. */
export interface Clock {
  /** Current instant, epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
