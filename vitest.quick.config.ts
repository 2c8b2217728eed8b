/**
 * `npm run test:quick`: the suite minus what starts processes of its own (the service or the CLI
 * as a child, nats-server, a PostgreSQL cluster, a browser) and minus the suites that exist for
 * those (e2e, resilience, security, cluster, readme, bench). What is left runs in-process against
 * SQLite (the script unsets TEST_DATABASE_URL): the pure rules, the store, every route through the
 * real HTTP server. A test file is left out by what it does, read from its source, so a new
 * process-starting test is left out without anyone listing it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

const SLOW_SUITES = ['test/e2e/', 'test/resilience/', 'test/security/', 'test/cluster/', 'test/readme/', 'test/bench/'];
/** Started as processes all the same: what a different Node.js line breaks first (the CLI's V8 flags). */
const RUNTIME_CHECKS = ['test/cli/shebang.test.ts'];
/** What in a test's source says it starts a process of its own. */
const STARTS_PROCESSES = /node:child_process|service-process|demo-process|process-fleet|nats-servers|owned-postgres|console-browser/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const leftOut = testFiles('test').filter((file) => !RUNTIME_CHECKS.includes(file)
  && (SLOW_SUITES.some((suite) => file.startsWith(suite)) || STARTS_PROCESSES.test(readFileSync(file, 'utf8'))));

export default mergeConfig(base, defineConfig({ test: { exclude: ['**/node_modules/**', ...leftOut] } }));
