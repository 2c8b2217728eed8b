import { defineConfig } from 'vitest/config';
import { exitOnBadTimeoutFactor, scaled } from './test/support/timeouts.js';

// TEST_TIMEOUT_FACTOR: how much longer to wait on a slow or busy machine.
exitOnBadTimeoutFactor();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time, not vitest's default of CPUs - 1 (one, on the 2-core machines this runs
    // on): most files wait on processes, sockets and databases far more than they compute.
    maxWorkers: 2,
    // Each failure printed as it happens (test/support/failures-at-once.ts), not only in the summary.
    reporters: ['default', './test/support/failures-at-once.ts'],
    testTimeout: scaled(30_000),
    hookTimeout: scaled(30_000),
  },
});
