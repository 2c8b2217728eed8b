import type { Command } from 'commander';
import { findCompany, listCompanies } from '../../store/registry-queries.js';
import { emit, table, UsageError } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';
import { applyRegistryChange, defined } from './apply-registry-change.js';

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
      if (await findCompany(ctx.store.db, opts.id!)) throw new UsageError(`company "${opts.id}" already exists (use company set)`);
      await applyRegistryChange(ctx, { companies: [{ id: opts.id, name: opts.name, plan: opts.plan }] });
      emit(ctx.output, { id: opts.id, created: true }, () => `company ${opts.id} created`);
    }));

  withStoreOptions(company.command('set').description('change a company\'s name or plan'))
    .requiredOption('--id <id>', 'company id')
    .option('--name <name>', 'display name')
    .option('--plan <plan>', 'package plan name')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const row = await findCompany(ctx.store.db, opts.id!);
      if (!row) throw new UsageError(`unknown company "${opts.id}"`);
      const wanted = { id: row.id, name: row.name, plan: row.plan, ...defined({ name: opts.name, plan: opts.plan }) };
      const result = await applyRegistryChange(ctx, { companies: [wanted] });
      emit(ctx.output, { id: row.id, changed: result.changed }, () => `company ${row.id} ${result.changed ? 'updated' : 'unchanged'}`);
    }));
}
