/**
 * A vitest reporter that prints each failure the moment it happens: where (file, suite, test) and
 * its error, as the end summary prints it. vitest's default reporter, beside it, keeps the
 * progress and that summary; a run cut short (a CI step's time limit, Ctrl-C, a machine that
 * ran out of time) still shows why the failed tests failed. A passing run prints nothing more.
 */
import type { Reporter, TestCase, TestModule, TestProject, TestSuite, Vitest } from 'vitest/node';

type ReportedError = Parameters<Vitest['logger']['printError']>[0];

/** A wait that ran out: vitest's test and hook timeouts, and test/support/until.ts's deadline. */
const RAN_OUT = /^(Test|Hook) timed out in \d+ms|^not within \d+ ms/;
const SLOW_MACHINE_HINT = 'On a slow or busy machine, TEST_TIMEOUT_FACTOR=3 makes every wait three times as long.';

export default class FailuresAtOnce implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestCaseResult(test: TestCase): void {
    const result = test.result();
    if (result.state === 'failed') this.#print(`${test.module.relativeModuleId} > ${test.fullName}`, result.errors, test.project);
  }

  /** A suite's own errors: a beforeAll or afterAll that threw. */
  onTestSuiteResult(suite: TestSuite): void {
    this.#print(`${suite.module.relativeModuleId} > ${suite.fullName}`, suite.errors(), suite.project);
  }

  /** A file's own errors: it failed to load, or a hook at its top level threw. */
  onTestModuleEnd(module: TestModule): void {
    this.#print(module.relativeModuleId, module.errors(), module.project);
  }

  #print(where: string, errors: readonly ReportedError[], project: TestProject): void {
    if (errors.length === 0 || this.#vitest === undefined) return;
    const { logger } = this.#vitest;
    logger.error(`\nFAILED ${where}`);
    for (const error of errors) logger.printError(error, { project, showCodeFrame: false });
    if (errors.some((error) => RAN_OUT.test(String((error as { message?: unknown }).message ?? '')))) logger.error(SLOW_MACHINE_HINT);
  }
}
