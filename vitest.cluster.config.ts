import { defineConfig } from 'vitest/config';
import { exitOnBadTimeoutFactor, scaled } from './test/support/timeouts.js';

/**
 * `npm run test:cluster` (test/cluster): many processes at once on the machine's two cores, so
 * one file at a time and long timeouts (times TEST_TIMEOUT_FACTOR); not part of `npm test`.
 */
exitOnBadTimeoutFactor();

export default defineConfig({
  test: {
    include: ['test/cluster/**/*.cluster.ts'],
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default', './test/support/failures-at-once.ts'],
    testTimeout: scaled(300_000),
    hookTimeout: scaled(180_000),
  },
});
