/**
 * Whether any company's geofences or alert rules changed, in one statement of one row: each
 * table's row count and the sum of its revisions. Every change raises one company's revision by
 * one in its own transaction (or adds its row at 1), so a committed change always moves the sum,
 * whatever the order transactions commit in or the process that made it; a pass reads the
 * per-company revisions (and reloads) only when a total moved.
 */
import type { Db } from './connection.js';

export interface DefinitionTotals {
  /** `count:sum` of geofence_revisions. */
  readonly fences: string;
  /** `count:sum` of alert_rule_revisions. */
  readonly rules: string;
}

export async function readDefinitionTotals(db: Db): Promise<DefinitionTotals> {
  const row = await db.selectNoFrom(() => [
    db.selectFrom('geofence_revisions').select((e) => e.fn.countAll<number | string>().as('n')).as('fence_count'),
    db.selectFrom('geofence_revisions').select((e) => e.fn.sum<number | string | null>('revision').as('s')).as('fence_sum'),
    db.selectFrom('alert_rule_revisions').select((e) => e.fn.countAll<number | string>().as('n')).as('rule_count'),
    db.selectFrom('alert_rule_revisions').select((e) => e.fn.sum<number | string | null>('revision').as('s')).as('rule_sum'),
  ]).executeTakeFirstOrThrow();
  return { fences: `${Number(row.fence_count ?? 0)}:${Number(row.fence_sum ?? 0)}`, rules: `${Number(row.rule_count ?? 0)}:${Number(row.rule_sum ?? 0)}` };
}
