/**
 * What the admin commands share: the use cases' dependencies with the command line's operator as
 * the actor, their mistakes (registry errors, the catalogue's answers) as one-line usage errors,
 * and the flags' forms.
 */
import { CLI_OPERATOR } from '../../domain/audit-chain.js';
import { ServiceError } from '../../domain/errors.js';
import { RegistryError } from '../../registry/manage-applications.js';
import type { RegistryDeps } from '../../registry/registry-entries.js';
import { UsageError } from '../output.js';
import type { StoreContext } from '../store-context.js';

export { defined } from '../../registry/registry-entries.js';

export const registryDepsOf = (ctx: StoreContext): RegistryDeps => ({ db: ctx.store.db, keyring: () => ctx.keyring(), now: () => Date.now(), actor: CLI_OPERATOR });

/** The operator's mistakes: one line, exit 1; an entry already there names the command that changes it. */
export async function asUsage<T>(run: () => Promise<T>, changeWith?: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RegistryError) throw new UsageError(error.kind === 'exists' && changeWith !== undefined ? `${error.message} (${changeWith})` : error.message);
    if (error instanceof ServiceError) throw new UsageError(error.detail);
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
