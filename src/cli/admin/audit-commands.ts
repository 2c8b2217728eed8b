import type { Command } from 'commander';
import { verifyAuditTrail } from '../../audit/verify-audit-trail.js';
import { chainOf } from '../../domain/audit-chain.js';
import { formatIsoWithOffset } from '../../domain/time.js';
import { listAuditEntries } from '../../store/audit-queries.js';
import { emit, table, UsageError } from '../output.js';
import { withStore, withStoreOptions } from '../store-context.js';

/**
 * `admin audit verify|list`: the operator checks that no audit entry was changed, removed or cut
 * off (docs/audit.md), and reads a company's trail (or the service's own with no --company).
 */
export function registerAuditCommands(admin: Command): void {
  const audit = admin.command('audit').description('the audit trail: who did what, chained by hashes');

  withStoreOptions(audit.command('verify').description('check every audit chain from its first entry; name the first broken entry of each'))
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const result = await verifyAuditTrail(ctx.store.db, (checked) => ctx.output.err(`checked ${checked.toLocaleString('en-US')} entries…`));
      const value = { ok: result.breaks.length === 0, chains: result.chains, entries: result.entries, breaks: result.breaks };
      emit(ctx.output, value, () => (value.ok
        ? `audit trail intact: ${result.entries} entries in ${result.chains} chain(s)`
        : result.breaks.map((b) => `chain ${b.chain}: entry ${b.seq} is broken: ${b.reason}`).join('\n')));
      if (!value.ok) throw new UsageError(`audit trail broken in ${result.breaks.length} chain(s): first at chain ${result.breaks[0]!.chain} entry ${result.breaks[0]!.seq}`);
    }));

  withStoreOptions(audit.command('list').description('newest entries of a company\'s trail (the service\'s own without --company)'))
    .option('--company <id>', 'the company whose trail to read')
    .option('--action <name>', 'one action, or a prefix ending in "." (command.)')
    .option('--limit <n>', 'how many (1..500)', '50')
    .action(async (opts: Record<string, string>) => withStore(opts, async (ctx) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('--limit must be a whole number from 1 to 500');
      const { entries } = await listAuditEntries(ctx.store.db, chainOf(opts.company ?? null), { limit, action: opts.action });
      const rows = entries.map((e) => ({ seq: e.seq, at: formatIsoWithOffset(e.at), actor: `${e.actorKind}:${e.actorId}`, action: e.action, target: e.target, outcome: e.outcome, details: e.details }));
      emit(ctx.output, rows, () => table(rows, ['seq', 'at', 'actor', 'action', 'target', 'outcome', 'details']));
    }));
}
