/**
 * Every admin add/set goes through the fleet-file validation and `applyFleet`, so the CLI and
 * `admin apply` accept exactly the same values and write them the same way.
 */
import { validateFleetFile } from '../../domain/fleet-file.js';
import { applyFleet, FleetRejected, type FleetApplyOptions, type FleetApplyResult } from '../../registry/apply-fleet.js';
import { UsageError } from '../output.js';
import type { StoreContext } from '../store-context.js';

/** Problems name fleet-file paths; for a single CLI entry only the field name is useful. */
const fieldOf = (path: string) => path.replace(/^.*\./, '').replace(/^\(file\)$/, 'input');

export async function applyRegistryChange(ctx: StoreContext, fragment: Record<string, unknown>, options: FleetApplyOptions = {}): Promise<FleetApplyResult> {
  const validation = validateFleetFile(fragment);
  if (!validation.ok) throw new UsageError(validation.problems.map((p) => `${fieldOf(p.path)}: ${p.message}`).join('; '));
  try {
    return await applyFleet(ctx.store.db, validation.fleet, ctx.keyring(), Date.now(), options);
  } catch (error) {
    if (error instanceof FleetRejected) throw new UsageError(error.problems.map((p) => `${fieldOf(p.path)}: ${p.message}`).join('; '));
    throw error;
  }
}

/** `--datapoints '*'` or `--datapoints speed,latitude`. */
export function nameList(value: string | undefined): '*' | string[] | undefined {
  if (value === undefined) return undefined;
  return value.trim() === '*' ? '*' : value.split(',').map((s) => s.trim()).filter(Boolean);
}

/** A numeric flag; left as text when it is not a number so validation names it. */
export function numberFlag(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : value;
}

export function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}
