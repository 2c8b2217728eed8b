/**
 * The admin commands' side of registry/registry-entries.ts: the entry's use case with the
 * command line's operator as the actor, its mistakes as one-line usage errors.
 */
import type { AuditActor } from '../../domain/audit-chain.js';
import { RegistryError } from '../../registry/manage-applications.js';
import type { RegistryDeps } from '../../registry/registry-entries.js';
import { UsageError } from '../output.js';
import type { StoreContext } from '../store-context.js';

export { defined } from '../../registry/registry-entries.js';

const CLI_OPERATOR: AuditActor = Object.freeze({ kind: 'operator', id: 'cli' });

export const registryDepsOf = (ctx: StoreContext): RegistryDeps => ({ db: ctx.store.db, keyring: () => ctx.keyring(), now: () => Date.now(), actor: CLI_OPERATOR });

/** Registry errors are operator mistakes: one line, exit 1; an entry already there names the command that changes it. */
export async function asUsage<T>(run: () => Promise<T>, changeWith?: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RegistryError) throw new UsageError(error.kind === 'exists' && changeWith !== undefined ? `${error.message} (${changeWith})` : error.message);
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
