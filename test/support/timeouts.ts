/**
 * How long the tests wait, scaled by `TEST_TIMEOUT_FACTOR` (a number ≥ 1, default 1). The waits
 * are sized for a 2-core machine running two test files at a time; on a slower or busier one,
 * processes, browsers and databases start later but still start, so `TEST_TIMEOUT_FACTOR=3`
 * lets them instead of failing. Only waits are scaled: a limit a test asserts (the service
 * answering within its own deadline) stays what it claims.
 */

const NAME = 'TEST_TIMEOUT_FACTOR';

/** The factor `value` names; throws a one-line message unless it is a number ≥ 1 (unset or empty: 1). */
export function timeoutFactor(value: string | undefined = process.env[NAME]): number {
  if (value === undefined || value.trim() === '') return 1;
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor < 1) throw new Error(`${NAME} must be a number of at least 1 (like 2 or 3), not "${value}"`);
  return factor;
}

/**
 * For the vitest configs: a bad value ends the run with its one line, before any test file
 * starts (an error thrown there would print the config loader's stack under it).
 */
export function exitOnBadTimeoutFactor(): void {
  try {
    timeoutFactor();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

/** `ms` scaled by the factor; the test workers inherit the variable the config already checked. */
export function scaled(ms: number): number {
  return Math.round(ms * timeoutFactor());
}
