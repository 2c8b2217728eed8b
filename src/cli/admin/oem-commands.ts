import type { Command } from 'commander';
import { describeNameSet, parseNameSet } from '../../domain/capabilities.js';
import { generateIngestKey } from '../../security/generated-secrets.js';
import { findOem, listOems } from '../../store/registry-queries.js';
import { emit, table, UsageError } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';
import { applyRegistryChange, defined, nameList } from './apply-registry-change.js';

export function registerOemCommands(admin: Command): void {
  const oem = admin.command('oem').description('automakers (OEMs): connector, capabilities, ingest key');

  withStoreOptions(oem.command('list').description('list OEMs (never their keys)'))
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = (await listOems(ctx.store.db)).map((o) => ({
        name: o.name, connector: o.connector, base_url: o.base_url, datapoints: parseNameSet(o.datapoints), commands: parseNameSet(o.commands),
      }));
      emit(ctx.output, rows, () => table(rows.map((r) => ({ ...r, datapoints: describeNameSet(r.datapoints), commands: describeNameSet(r.commands) })),
        ['name', 'connector', 'base_url', 'datapoints', 'commands']));
    }));

  withStoreOptions(oem.command('add').description('register an OEM; its ingest key is generated and printed once'))
    .requiredOption('--name <name>', 'OEM name')
    .requiredOption('--connector <kind>', 'sim, http, or device (vehicles reached through their own trackers)')
    .option('--base-url <url>', 'base URL of the automaker cloud (http connector)')
    .option('--datapoints <list>', '"*" or comma-separated datapoint names', '*')
    .option('--commands <list>', '"*" or comma-separated command names', '*')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      if (await findOem(ctx.store.db, opts.name!)) throw new UsageError(`OEM "${opts.name}" already exists (use oem set)`);
      const ingestKey = generateIngestKey();
      await applyRegistryChange(ctx, { oems: [defined({
        name: opts.name, connector: opts.connector, base_url: opts.baseUrl, ingest_key: ingestKey,
        datapoints: nameList(opts.datapoints), commands: nameList(opts.commands),
      })] });
      emit(ctx.output, { name: opts.name, ingest_key: ingestKey }, () => `OEM ${opts.name} created\ningest_key=${ingestKey}\n(shown only now: give it to the automaker for POST /ingest/${opts.name})`);
    }));

  withStoreOptions(oem.command('set').description('change an OEM'))
    .requiredOption('--name <name>', 'OEM name')
    .option('--connector <kind>', 'sim, http or device')
    .option('--base-url <url>', 'base URL of the automaker cloud')
    .option('--datapoints <list>', '"*" or comma-separated datapoint names')
    .option('--commands <list>', '"*" or comma-separated command names')
    .option('--rotate-ingest-key', 'replace the ingest key (printed once)')
    .action(async (opts: Record<string, string | boolean>) => withStore(opts, async (ctx) => {
      const row = await findOem(ctx.store.db, opts.name as string);
      if (!row) throw new UsageError(`unknown OEM "${opts.name}"`);
      const ingestKey = opts.rotateIngestKey === true ? generateIngestKey() : undefined;
      const wanted = defined({
        name: row.name, connector: row.connector, base_url: row.base_url ?? undefined,
        datapoints: parseNameSet(row.datapoints), commands: parseNameSet(row.commands),
        ...defined({ connector: opts.connector, base_url: opts.baseUrl, datapoints: nameList(opts.datapoints as string | undefined),
          commands: nameList(opts.commands as string | undefined), ingest_key: ingestKey }),
      });
      const result = await applyRegistryChange(ctx, { oems: [wanted] }, { replaceSecrets: ingestKey !== undefined });
      emit(ctx.output, { name: row.name, changed: result.changed, ...(ingestKey ? { ingest_key: ingestKey } : {}) },
        () => `OEM ${row.name} ${result.changed ? 'updated' : 'unchanged'}${ingestKey ? `\ningest_key=${ingestKey}` : ''}`);
    }));
}
