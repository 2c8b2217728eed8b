/** Durations as operators write them (`2d`, `36h`, `90m`, `45s`), in milliseconds inside the code. */

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

const UNIT_MS: Readonly<Record<string, number>> = { s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS };

/** The units a duration setting may read a bare number in (its documented `unit`). */
export const BARE_NUMBER_UNITS: Readonly<Record<string, number>> = { seconds: SECOND_MS, hours: HOUR_MS, days: DAY_MS };

/** `2d`, `36h`, `90m`, `45s` or `0` as milliseconds; undefined otherwise. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]);
  if (m[2] === '') return value === 0 ? 0 : undefined;
  return Math.round(value * UNIT_MS[m[2]!]!);
}

/** Milliseconds in the largest unit that divides them: 172_800_000 → `2d`, 90_000 → `90s`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [['d', DAY_MS], ['h', HOUR_MS], ['m', MINUTE_MS], ['s', SECOND_MS]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return String(ms);
}
