import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describeProblems, validateFleetFile } from '../../domain/fleet-file.js';
import { applyFleet, FleetRejected } from '../../registry/apply-fleet.js';
import { UsageError } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

const rejected = (file: string, text: string, count: number) =>
  new UsageError(`${file} rejected, nothing applied (${count} problem${count === 1 ? '' : 's'}): ${text.split('\n').join('; ')}`);

export function registerApply(admin: Command): void {
  withStoreOptions(admin.command('apply'))
    .argument('<file>', 'fleet file (JSON)')
    .option('--replace-secrets', 'let secrets in the file replace different stored ones (otherwise that is an error)')
    .description('apply a fleet file idempotently; prints a JSON summary (generated secrets are shown once)')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const validation = validateFleetFile(readJson(file));
      if (!validation.ok) throw rejected(file, describeProblems(validation.problems), validation.problems.length);
      await withStore(opts, async (ctx) => {
        try {
          const result = await applyFleet(ctx.store.db, validation.fleet, ctx.keyring(), Date.now(), { replaceSecrets: opts.replaceSecrets === true });
          ctx.output.out(JSON.stringify(result, null, 2));
        } catch (error) {
          if (error instanceof FleetRejected) throw rejected(file, describeProblems(error.problems), error.problems.length);
          throw error;
        }
      });
    });
}
