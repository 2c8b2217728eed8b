import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time, not vitest's default of CPUs - 1 (one, on the 2-core machines this runs
    // on): most files wait on processes, sockets and databases far more than they compute.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
