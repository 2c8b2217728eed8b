/**
 * The reporter the vitest configs add beside the default one: a failure is printed when its test
 * ends, naming the file and the test, with a hint when a wait ran out; a pass prints nothing.
 */
import { describe, expect, it } from 'vitest';
import type { TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';
import FailuresAtOnce from './support/failures-at-once.js';

function reporterWithLog(): { reporter: FailuresAtOnce; lines: string[] } {
  const lines: string[] = [];
  const logger = { error: (text = '') => lines.push(text), printError: (error: { message: string }) => lines.push(`printed: ${error.message}`) };
  const reporter = new FailuresAtOnce();
  reporter.onInit({ logger } as unknown as Vitest);
  return { reporter, lines };
}

const module = { relativeModuleId: 'test/http/vehicles.test.ts' };
const testCase = (result: object) => ({ module, fullName: 'vehicles > when listed, then sorted', project: {}, result: () => result }) as unknown as TestCase;

describe('failures reported as they happen', () => {
  it('when a test fails, then its file, name and error are printed at once; a passing or skipped one prints nothing', () => {
    const { reporter, lines } = reporterWithLog();
    reporter.onTestCaseResult(testCase({ state: 'passed', errors: [] }));
    reporter.onTestCaseResult(testCase({ state: 'skipped', errors: undefined }));
    expect(lines).toEqual([]);
    reporter.onTestCaseResult(testCase({ state: 'failed', errors: [{ message: 'expected 1 to be 2' }] }));
    expect(lines).toEqual(['\nFAILED test/http/vehicles.test.ts > vehicles > when listed, then sorted', 'printed: expected 1 to be 2']);
  });

  it('when a wait ran out, then the line after the error names TEST_TIMEOUT_FACTOR', () => {
    const { reporter, lines } = reporterWithLog();
    reporter.onTestCaseResult(testCase({ state: 'failed', errors: [{ message: 'Test timed out in 30000ms.\nIf this is a long-running test, …' }] }));
    reporter.onTestCaseResult(testCase({ state: 'failed', errors: [{ message: 'not within 20000 ms: the service to listen' }] }));
    expect(lines.filter((l) => l.includes('TEST_TIMEOUT_FACTOR=3'))).toHaveLength(2);
  });

  it('when a hook or a whole file fails, then the suite or the file is named with its error', () => {
    const { reporter, lines } = reporterWithLog();
    reporter.onTestSuiteResult({ module, fullName: 'vehicles', project: {}, errors: () => [{ message: 'hook broke' }] } as unknown as TestSuite);
    reporter.onTestSuiteResult({ module, fullName: 'trips', project: {}, errors: () => [] } as unknown as TestSuite);
    reporter.onTestModuleEnd({ ...module, project: {}, errors: () => [{ message: 'Chromium not found at /usr/bin/chromium: …' }] } as unknown as TestModule);
    expect(lines).toEqual([
      '\nFAILED test/http/vehicles.test.ts > vehicles', 'printed: hook broke',
      '\nFAILED test/http/vehicles.test.ts', 'printed: Chromium not found at /usr/bin/chromium: …',
    ]);
  });
});
