#!/usr/bin/env -S node --min-semi-space-size=16 --max-semi-space-size=16
// V8's young generation fixed at 16 MB a semi-space (Node's default maximum: only the minimum
// moves). Free to resize, about one `serve` process in three came up in a state where each
// scavenge faults its pages in again, and answered at half speed for its whole life (0.7 page
// faults a request; none of 16 processes with it fixed: docs/decisions/0020-young-generation-fixed.md).
// `node bin/telematics.js` skips this line: give node the same flags there (`npm start`
// runs the file itself).
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
