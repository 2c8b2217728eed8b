import type { Command } from 'commander';
import { addCompany, changeCompany } from '../../registry/registry-entries.js';
import { listCompanies } from '../../store/registry-queries.js';
import { emit, table } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';
import { asUsage, defined, registryDepsOf } from './admin-context.js';

export function registerCompanyCommands(admin: Command): void {
  const company = admin.command('company').description('companies');

  withStoreOptions(company.command('list').description('list companies'))
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = (await listCompanies(ctx.store.db)).map((c) => ({ id: c.id, name: c.name, plan: c.plan }));
      emit(ctx.output, rows, () => table(rows, ['id', 'name', 'plan']));
    }));

  withStoreOptions(company.command('add').description('register a company'))
    .requiredOption('--id <id>', 'company id (letters, digits, _ and -)')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--plan <plan>', 'package plan name')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      await asUsage(() => addCompany(registryDepsOf(ctx), { id: opts.id, name: opts.name, plan: opts.plan }), 'use company set');
      emit(ctx.output, { id: opts.id, created: true }, () => `company ${opts.id} created`);
    }));

  withStoreOptions(company.command('set').description('change a company\'s name or plan'))
    .requiredOption('--id <id>', 'company id')
    .option('--name <name>', 'display name')
    .option('--plan <plan>', 'package plan name')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const result = await asUsage(() => changeCompany(registryDepsOf(ctx), opts.id!, defined({ name: opts.name, plan: opts.plan })));
      emit(ctx.output, { id: result.id, changed: result.changed }, () => `company ${result.id} ${result.changed ? 'updated' : 'unchanged'}`);
    }));
}
