import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster` (test/cluster): many processes at once on the machine's two cores, so
 * one file at a time and long timeouts; not part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.cluster.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 180_000,
  },
});
