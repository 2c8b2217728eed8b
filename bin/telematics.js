#!/usr/bin/env node
// The compiled CLI lives in dist/ (built by `npm ci` through the prepare script).
import { main } from '../dist/cli/main.js';
import { escapeUnsafeText } from '../dist/domain/safe-text.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => {
    // An unexpected error's message can quote input (a path, a value): printed escaped, like every error.
    console.error(`telematics: ${escapeUnsafeText(error instanceof Error ? error.message : String(error), { keepNewlines: true })}`);
    process.exitCode = 1;
  },
);
