/**
 * `telematics openapi`: the OpenAPI document, as GET /openapi.json serves it, without a database
 * or a listener. The repository keeps it in openapi/openapi.json (`npm run openapi:export`), and
 * a test fails when that file is stale; clients (the SDK's types) are generated from it.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { processOutput, UsageError } from './output.js';

export function registerOpenApi(program: Command): void {
  program.command('openapi')
    .description('print the OpenAPI document (what GET /openapi.json serves)')
    .option('--out <file>', 'write it to this file instead')
    .action(async (opts: { out?: string }) => {
      // Imported here: building the routes loads the whole HTTP side, which no other command needs.
      const { openApiDocumentText } = await import('./openapi-document.js');
      const text = await openApiDocumentText();
      if (opts.out === undefined) {
        processOutput(false).out(text);
        return;
      }
      try {
        writeFileSync(opts.out, text);
      } catch (error) {
        throw new UsageError(`cannot write ${opts.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      processOutput(false).out(`wrote ${opts.out}\n`);
    });
}
