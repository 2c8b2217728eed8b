import type { Command } from 'commander';
import { describeNameSet, parseNameSet } from '../../domain/capabilities.js';
import { addOem, changeOem } from '../../registry/registry-entries.js';
import { listOems } from '../../store/registry-queries.js';
import { emit, table } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';
import { asUsage, defined, nameList, registryDepsOf } from './admin-context.js';

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
      const added = await asUsage(() => addOem(registryDepsOf(ctx), defined({
        name: opts.name, connector: opts.connector, base_url: opts.baseUrl, datapoints: nameList(opts.datapoints), commands: nameList(opts.commands),
      })), 'use oem set');
      emit(ctx.output, added, () => `OEM ${added.name} created\ningest_key=${added.ingest_key}\n(shown only now: give it to the automaker for POST /ingest/${added.name})`);
    }));

  withStoreOptions(oem.command('set').description('change an OEM'))
    .requiredOption('--name <name>', 'OEM name')
    .option('--connector <kind>', 'sim, http or device')
    .option('--base-url <url>', 'base URL of the automaker cloud')
    .option('--datapoints <list>', '"*" or comma-separated datapoint names')
    .option('--commands <list>', '"*" or comma-separated command names')
    .option('--rotate-ingest-key', 'replace the ingest key (printed once)')
    .action(async (opts: Record<string, string | boolean>) => withStore(opts, async (ctx) => {
      const result = await asUsage(() => changeOem(registryDepsOf(ctx), opts.name as string, defined({
        connector: opts.connector, base_url: opts.baseUrl, datapoints: nameList(opts.datapoints as string | undefined), commands: nameList(opts.commands as string | undefined),
      }), opts.rotateIngestKey === true));
      emit(ctx.output, result, () => `OEM ${result.name} ${result.changed ? 'updated' : 'unchanged'}${result.ingest_key ? `\ningest_key=${result.ingest_key}` : ''}`);
    }));
}
