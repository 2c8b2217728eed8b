#!/usr/bin/env node
// The compiled CLI lives in dist/ (built by `npm ci` through the prepare script).
import { main } from '../dist/cli/main.js';
import { escapeUnsafeText } from '../dist/domain/safe-text.js';

// A reader that stops early (`telematics openapi | head`) closes the pipe: end as a shell
// pipeline would (128 + SIGPIPE), not with a stack trace.
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(141);
});

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => {
    // An unexpected error's message can quote input (a path, a value): printed escaped, like every error.
    console.error(`telematics: ${escapeUnsafeText(error instanceof Error ? error.message : String(error), { keepNewlines: true })}`);
    process.exitCode = 1;
  },
);
