import type { Command } from 'commander';
import { addVehicle, changeVehicle } from '../../registry/registry-entries.js';
import { listAllVehicles } from '../../store/vehicles-queries.js';
import { formatIsoLocal } from '../../domain/time.js';
import { DEVICE_TEXT_EXAMPLES, parseDeviceText, type VehicleDevice } from '../../domain/trackers.js';
import { emit, table, UsageError } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';
import { asUsage, defined, numberFlag, registryDepsOf } from './admin-context.js';

function vehicleOptions(command: Command): Command {
  return command
    .option('--plate <plate>', 'license plate')
    .option('--oem <name>', 'automaker')
    .option('--model <model>', 'model')
    .option('--year <year>', 'model year')
    .option('--status <status>', 'active or inactive')
    .option('--ownership <type>', 'owned, financed, leased or rental')
    .option('--fuel-capacity <liters>', 'tank capacity in liters')
    .option('--device <protocol:id>', `its own tracker, e.g. ${DEVICE_TEXT_EXAMPLES} (OEMs with the device connector; \`none\` removes it)`)
    .option('--sim-profile <profile>', 'simulate it: normal, offline, moving, privacy or flaky')
    .option('--no-sim-telemetry', 'simulated vehicle generates no telemetry');
}

function fromFlags(opts: Record<string, string | boolean | undefined>): Record<string, unknown> {
  return defined({
    plate: opts.plate, oem: opts.oem, model: opts.model, year: numberFlag(opts.year as string | undefined),
    status: opts.status, ownership: opts.ownership, fuel_capacity: numberFlag(opts.fuelCapacity as string | undefined),
    device: deviceFlag(opts.device as string | undefined),
  });
}

/** `--device teltonika:<IMEI>` as the fleet file's `device` block; `none` is null (removed). */
function deviceFlag(text: string | undefined): VehicleDevice | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'none') return null;
  const device = parseDeviceText(text);
  if ('problem' in device) throw new UsageError(device.problem);
  return device;
}

export function registerVehicleCommands(admin: Command): void {
  const vehicle = admin.command('vehicle').description('vehicles');

  withStoreOptions(vehicle.command('list').description('list vehicles'))
    .option('--company <id>', 'only this company')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const rows = (await listAllVehicles(ctx.store.db, opts.company)).map((v) => ({
        company: v.companyId, vin: v.vin, plate: v.plate, oem: v.oem, model: v.model, year: v.year, status: v.status,
        ownership: v.ownership, fuel_capacity: v.fuelCapacity, sim: v.sim ? JSON.parse(v.sim) : null,
        device: v.deviceId === null ? null : `${v.deviceProtocol}:${v.deviceId}`, created: formatIsoLocal(v.createdAt),
      }));
      emit(ctx.output, rows, () => table(rows, ['company', 'vin', 'plate', 'oem', 'model', 'year', 'status', 'ownership', 'device']));
    }));

  vehicleOptions(withStoreOptions(vehicle.command('add').description('register a vehicle')))
    .requiredOption('--company <id>', 'company id')
    .requiredOption('--vin <vin>', 'VIN (17 characters, no I, O or Q)')
    .action(async (opts: Record<string, string | boolean | undefined>) => withStore(opts, async (ctx) => {
      const sim = opts.simProfile === undefined ? undefined : { profile: opts.simProfile, telemetry: opts.simTelemetry !== false };
      await asUsage(() => addVehicle(registryDepsOf(ctx), opts.company, { vin: opts.vin, ...fromFlags(opts), ...defined({ sim }) }),
        `change it with \`telematics admin vehicle set --vin ${opts.vin}\``);
      emit(ctx.output, { vin: opts.vin, created: true }, () => `vehicle ${opts.vin} created`);
    }));

  vehicleOptions(withStoreOptions(vehicle.command('set').description('change a vehicle')))
    .requiredOption('--vin <vin>', 'VIN')
    .action(async (opts: Record<string, string | boolean | undefined>) => withStore(opts, async (ctx) => {
      const sim = defined({ profile: opts.simProfile, telemetry: opts.simTelemetry === false ? false : undefined });
      const result = await asUsage(() => changeVehicle(registryDepsOf(ctx), opts.vin as string, { ...fromFlags(opts), ...(Object.keys(sim).length > 0 ? { sim } : {}) }));
      emit(ctx.output, result, () => `vehicle ${result.vin} ${result.changed ? 'updated' : 'unchanged'}`);
    }));
}
