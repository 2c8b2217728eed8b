import type { Command } from 'commander';
import { describeNameSet, parseNameSet } from '../../domain/capabilities.js';
import { findPlan, listPlans } from '../../store/registry-queries.js';
import { emit, table, UsageError } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';
import { applyRegistryChange, defined, nameList } from './apply-registry-change.js';

export function registerPlanCommands(admin: Command): void {
  const plan = admin.command('plan').description('package plans: which datapoints and commands a company may use');

  withStoreOptions(plan.command('list').description('list plans'))
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = (await listPlans(ctx.store.db)).map((p) => ({ name: p.name, datapoints: parseNameSet(p.datapoints), commands: parseNameSet(p.commands) }));
      emit(ctx.output, rows, () => table(rows.map((r) => ({ ...r, datapoints: describeNameSet(r.datapoints), commands: describeNameSet(r.commands) })), ['name', 'datapoints', 'commands']));
    }));

  withStoreOptions(plan.command('add').description('create a plan'))
    .requiredOption('--name <name>', 'plan name')
    // Everything unless narrowed, as `oem add` does: a plan names what a company may use.
    .option('--datapoints <list>', '"*" or comma-separated datapoint names', '*')
    .option('--commands <list>', '"*" or comma-separated command names', '*')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      if (await findPlan(ctx.store.db, opts.name!)) throw new UsageError(`plan "${opts.name}" already exists (use plan set)`);
      await applyRegistryChange(ctx, { plans: [{ name: opts.name, datapoints: nameList(opts.datapoints), commands: nameList(opts.commands) }] });
      emit(ctx.output, { name: opts.name, created: true }, () => `plan ${opts.name} created`);
    }));

  withStoreOptions(plan.command('set').description('change a plan'))
    .requiredOption('--name <name>', 'plan name')
    .option('--datapoints <list>', '"*" or comma-separated datapoint names')
    .option('--commands <list>', '"*" or comma-separated command names')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const row = await findPlan(ctx.store.db, opts.name!);
      if (!row) throw new UsageError(`unknown plan "${opts.name}"`);
      const wanted = {
        name: row.name, datapoints: parseNameSet(row.datapoints), commands: parseNameSet(row.commands),
        ...defined({ datapoints: nameList(opts.datapoints), commands: nameList(opts.commands) }),
      };
      const result = await applyRegistryChange(ctx, { plans: [wanted] });
      emit(ctx.output, { name: row.name, changed: result.changed }, () => `plan ${row.name} ${result.changed ? 'updated' : 'unchanged'}`);
    }));
}
