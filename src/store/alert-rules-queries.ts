/**
 * Alert rules (migration 0024): a company's rules, and the per-company revision every change
 * moves in its own transaction, so an evaluator knows whose rules to read again.
 */
import { inTransaction } from './in-transaction.js';
import { sql, type Selectable } from 'kysely';
import type { AlertKind, AlertRule, AlertRuleFields } from '../domain/alerts/alert-rule.js';
import type { WeeklySchedule, WeeklyWindow } from '../domain/alerts/weekly-schedule.js';
import { rebasedAlertState } from '../domain/alerts/rebase-alert-state.js';
import type { Db } from './connection.js';
import { rebaseAlertStates } from './rebase-watch-states.js';
import type { AlertRulesTable } from './schema.js';

type AlertRuleRow = Selectable<AlertRulesTable>;

/** A rule as it is stored, with when it was created and last replaced. */
export interface StoredAlertRule extends AlertRule {
  readonly companyId: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

function scheduleText(schedule: WeeklySchedule | null): string | null {
  return schedule === null ? null : JSON.stringify({ time_zone: schedule.timeZone, weekly: schedule.weekly });
}

function scheduleOf(text: string | null): WeeklySchedule | null {
  if (text === null) return null;
  const stored = JSON.parse(text) as { time_zone: string; weekly: WeeklyWindow[] };
  return { timeZone: stored.time_zone, weekly: stored.weekly };
}

function ruleOf(row: AlertRuleRow): StoredAlertRule {
  return {
    id: row.id, companyId: row.company_id, name: row.name, kind: row.kind as AlertKind,
    vins: row.vins === null ? null : JSON.parse(row.vins) as string[], threshold: row.threshold === null ? null : Number(row.threshold),
    durationS: Number(row.duration_s), schedule: scheduleOf(row.schedule), cooldownS: Number(row.cooldown_s), enabled: Number(row.enabled) === 1,
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

const columnsOf = (fields: AlertRuleFields) => ({
  name: fields.name, kind: fields.kind, vins: fields.vins === null ? null : JSON.stringify(fields.vins), threshold: fields.threshold,
  duration_s: fields.durationS, schedule: scheduleText(fields.schedule), cooldown_s: fields.cooldownS, enabled: fields.enabled ? 1 : 0,
});

/** By name then id, compared as code units: the same order on both databases whatever PostgreSQL's collation. */
const byNameThenId = (a: StoredAlertRule, b: StoredAlertRule) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Moves the company's revision (its first change makes it 1). Call in the transaction of the change. */
async function bumpRevision(db: Db, companyId: string): Promise<void> {
  await db.insertInto('alert_rule_revisions').values({ company_id: companyId, revision: 1 })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ revision: sql`alert_rule_revisions.revision + 1` }))
    .execute();
}

export async function insertAlertRule(db: Db, companyId: string, id: string, fields: AlertRuleFields, now: number): Promise<StoredAlertRule> {
  const row: AlertRuleRow = { id, company_id: companyId, ...columnsOf(fields), created_at: now, updated_at: now };
  await inTransaction(db, async (trx) => {
    await trx.insertInto('alert_rules').values(row).execute();
    await bumpRevision(trx, companyId);
  });
  return ruleOf(row);
}

/**
 * Replaces the rule's fields, and re-bases the vehicles' states of it (rebase-alert-state.ts) in
 * the same transaction; undefined when the company has no rule of that id.
 */
export async function replaceAlertRule(db: Db, companyId: string, id: string, fields: AlertRuleFields, now: number): Promise<StoredAlertRule | undefined> {
  return inTransaction(db, async (trx) => {
    const before = await trx.selectFrom('alert_rules').select('kind').where('id', '=', id).where('company_id', '=', companyId).executeTakeFirst();
    const row = await trx.updateTable('alert_rules').set({ ...columnsOf(fields), updated_at: now })
      .where('id', '=', id).where('company_id', '=', companyId).returningAll().executeTakeFirst();
    if (row === undefined || before === undefined) return undefined;
    await bumpRevision(trx, companyId);
    const covered = fields.vins === null ? null : new Set(fields.vins);
    await rebaseAlertStates(trx, id, (vin, state) => rebasedAlertState(before.kind as AlertKind, { kind: fields.kind, covers: covered?.has(vin) ?? true }, state, now), now);
    return ruleOf(row);
  });
}

/** Deletes the rule; false when the company has no rule of that id. */
export async function deleteAlertRule(db: Db, companyId: string, id: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const result = await trx.deleteFrom('alert_rules').where('id', '=', id).where('company_id', '=', companyId).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return false;
    await bumpRevision(trx, companyId);
    return true;
  });
}

export async function findAlertRule(db: Db, companyId: string, id: string): Promise<StoredAlertRule | undefined> {
  const row = await db.selectFrom('alert_rules').selectAll().where('id', '=', id).where('company_id', '=', companyId).executeTakeFirst();
  return row === undefined ? undefined : ruleOf(row);
}

/** The company's rules, by name then id. */
export async function listAlertRules(db: Db, companyId: string): Promise<StoredAlertRule[]> {
  const rows = await db.selectFrom('alert_rules').selectAll().where('company_id', '=', companyId).orderBy('name').orderBy('id').execute();
  return rows.map(ruleOf).sort(byNameThenId);
}

export async function countAlertRules(db: Db, companyId: string): Promise<number> {
  const row = await db.selectFrom('alert_rules').select((eb) => eb.fn.countAll<number | string>().as('n')).where('company_id', '=', companyId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The company's rules that fire (the enabled ones), for the evaluator; by id. */
export async function listRulesForWatch(db: Db, companyId: string): Promise<StoredAlertRule[]> {
  const rows = await db.selectFrom('alert_rules').selectAll().where('company_id', '=', companyId).where('enabled', '=', 1).orderBy('id').execute();
  return rows.map(ruleOf);
}

/** Every company's revision of its rules; a company whose rules never changed is absent. */
export async function readAlertRuleRevisions(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('alert_rule_revisions').select(['company_id', 'revision']).execute();
  return new Map(rows.map((r) => [r.company_id, Number(r.revision)]));
}
