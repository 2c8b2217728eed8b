import type { Command } from 'commander';
import { SETTINGS, tripSettingsOf } from '../config.js';
import { parseInputDate } from '../domain/time.js';
import { detectTripsForVin, pendingTripInputs, safeRebuildStart } from '../trips/detect-trips.js';
import { markTripRewind } from '../store/trips-queries.js';
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
    const now = Date.now();
    // Trips older than the stored telemetry cannot be detected again: never go back that far.
    const starts = new Map<string, number>();
    let clamped = 0;
    for (const v of vehicles) {
      const start = await safeRebuildStart(ctx.store, v.vin, since.epochMs, settings);
      if (start === undefined) continue;
      if (start > since.epochMs) clamped += 1;
      starts.set(v.vin, start);
    }
    if (clamped > 0) process.stderr.write(`trips rebuild: ${clamped} vehicle(s) start later than --since, where their stored telemetry begins (older trips are kept)\n`);
    let total = 0;
    for (const [vin, start] of starts) total += await pendingTripInputs(ctx.store, vin, start, now, settings);
    const progress = progressBar('trips rebuild');
    const report = { vehicles: vehicles.length, records: 0, trips: 0 };
    for (const v of vehicles) {
      const start = starts.get(v.vin);
      if (start === undefined) continue;
      await markTripRewind(ctx.store.db, ctx.store.capabilities, v.vin, start);
      const done = report.records;
      const r = await detectTripsForVin(ctx.store, v.vin, v.fuelCapacity, now, settings, (records) => progress.update(done + records, total));
      report.records += r.records;
      report.trips += r.trips;
    }
    progress.finish(`${report.trips} trips from ${report.records.toLocaleString('en-US')} records`);
    emit(ctx.output, report, () => `${report.vehicles} vehicles, ${report.records} records, ${report.trips} trips`);
  }));
}
