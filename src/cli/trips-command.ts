import type { Command } from 'commander';
import { SETTINGS } from '../config/settings.js';
import { tripSettingsOf } from '../config/component-settings.js';
import { parseInputDate } from '../domain/time.js';
import { rebuildTrips } from '../trips/rebuild-trips.js';
import { listAllVehicles } from '../store/vehicles-queries.js';
import { emit, UsageError } from './output.js';
import { progressBar } from './progress-bar.js';
import { withStore, withStoreOptions } from './store-context.js';

export function registerTrips(program: Command): void {
  const trips = program.command('trips').description('trip detection');
  const rebuild = withStoreOptions(trips.command('rebuild').description('recompute trips from stored telemetry, with progress'))
    .option('--vin <vin...>', 'only these VINs (default: every vehicle)')
    .requiredOption('--since <date>', 'recompute from this instant (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS at -03:00, or with an offset)');
  // The D9 thresholds, as `serve` takes them, so a rebuild can try other values.
  for (const spec of SETTINGS.filter((s) => s.key.startsWith('trip'))) rebuild.option(`${spec.flag} <value>`, `${spec.description} (env ${spec.env}, default ${spec.defaultText})`);
  rebuild.action(async (opts: Record<string, unknown>) => withStore(opts, async (ctx) => {
    const since = parseInputDate(String(opts.since));
    if (!since) throw new UsageError('--since must be YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or YYYY-MM-DDTHH:MM:SS±HH:MM');
    const settings = tripSettingsOf(ctx.config);
    const vehicles = (await listAllVehicles(ctx.store.db)).filter((v) => !opts.vin || (opts.vin as string[]).includes(v.vin));
    const unknown = ((opts.vin as string[] | undefined) ?? []).filter((vin) => !vehicles.some((v) => v.vin === vin));
    if (unknown.length > 0) throw new UsageError(`unknown VIN ${unknown.join(', ')}`);
    const bar = progressBar('trips rebuild');
    const report = await rebuildTrips(ctx.store, vehicles, since.epochMs, Date.now(), settings, {
      start: (r) => {
        if (r.clamped > 0) process.stderr.write(`trips rebuild: ${r.clamped} vehicle(s) start later than --since, where their stored telemetry begins (older trips are kept)\n`);
      },
      update: (records, total) => bar.update(records, total),
    });
    bar.finish(`${report.trips} trips from ${report.records.toLocaleString('en-US')} records`);
    emit(ctx.output, { vehicles: report.vehicles, records: report.records, trips: report.trips }, () => `${report.vehicles} vehicles, ${report.records} records, ${report.trips} trips`);
  }));
}
