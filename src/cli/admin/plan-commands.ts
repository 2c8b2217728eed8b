import type { Command } from 'commander';
import { describeNameSet, parseNameSet } from '../../domain/capabilities.js';
import { addPlan, changePlan } from '../../registry/registry-entries.js';
import { listPlans } from '../../store/registry-queries.js';
import { emit, table } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';
import { asUsage, defined, nameList, registryDepsOf } from './admin-context.js';

export function registerPlanCommands(admin: Command): void {
  const plan = admin.command('plan').description('package plans: which datapoints and commands a company may use');

  withStoreOptions(plan.command('list').description('list plans'))
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = (await listPlans(ctx.store.db)).map((p) => ({ name: p.name, datapoints: parseNameSet(p.datapoints), commands: parseNameSet(p.commands) }));
      emit(ctx.output, rows, () => table(rows.map((r) => ({ ...r, datapoints: describeNameSet(r.datapoints), commands: describeNameSet(r.commands) })), ['name', 'datapoints', 'commands']));
    }));

  withStoreOptions(plan.command('add').description('create a plan'))
    .requiredOption('--name <name>', 'plan name')
    .option('--datapoints <list>', '"*" or comma-separated datapoint names', '*')
    .option('--commands <list>', '"*" or comma-separated command names', '*')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      await asUsage(() => addPlan(registryDepsOf(ctx), { name: opts.name, datapoints: nameList(opts.datapoints), commands: nameList(opts.commands) }), 'use plan set');
      emit(ctx.output, { name: opts.name, created: true }, () => `plan ${opts.name} created`);
    }));

  withStoreOptions(plan.command('set').description('change a plan'))
    .requiredOption('--name <name>', 'plan name')
    .option('--datapoints <list>', '"*" or comma-separated datapoint names')
    .option('--commands <list>', '"*" or comma-separated command names')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const result = await asUsage(() => changePlan(registryDepsOf(ctx), opts.name!, defined({ datapoints: nameList(opts.datapoints), commands: nameList(opts.commands) })));
      emit(ctx.output, result, () => `plan ${result.name} ${result.changed ? 'updated' : 'unchanged'}`);
    }));
}
