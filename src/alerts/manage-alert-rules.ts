/**
 * Creating, reading, replacing and deleting a company's alert rules (D13). Every application of
 * the company sees and changes the same rules: they watch the company's vehicles, not one
 * application's. Each change moves the company's revision in its transaction
 * (store/alert-rules-queries.ts), which is how the evaluator learns of it.
 */
import { changeEntry, withAudit } from '../audit/record-audit.js';
import type { AuditActor } from '../domain/audit-chain.js';
import { randomUUID } from 'node:crypto';
import { foreignVinProblem, parseAlertRule, type AlertRuleFields } from '../domain/alerts/alert-rule.js';
import type { Clock } from '../domain/clock.js';
import { errors, ServiceError } from '../domain/errors.js';
import { storedIdOf } from '../domain/resource-id.js';
import { formatIsoWithOffset } from '../domain/time.js';
import {
  countAlertRules, deleteAlertRule, findAlertRule, insertAlertRule, listAlertRules, replaceAlertRule, type StoredAlertRule,
} from '../store/alert-rules-queries.js';
import type { StoreConnection } from '../store/connection.js';
import { companyVehicleOems } from '../store/vehicles-queries.js';

export interface AlertRuleSettings {
  /** `--max-alert-rules-per-company`. */
  readonly maxPerCompany: number;
  /** Faster than this is moving, for the preview (`--trip-moving-speed`; 3 km/h when absent). */
  readonly movingSpeedKmh?: number;
}

export interface AlertRuleDeps {
  readonly store: StoreConnection;
  readonly clock: Clock;
  readonly alertRules: AlertRuleSettings;
}

/** VINs asked of the registry per statement: a rule may name 10,000, more than some drivers bind at once. */
const VIN_CHUNK = 1000;

/** A rule as the API answers it. */
export function alertRuleResource(rule: StoredAlertRule) {
  return {
    id: rule.id, name: rule.name, kind: rule.kind, vins: rule.vins, threshold: rule.threshold, duration_s: rule.durationS,
    schedule: rule.schedule === null ? null : { time_zone: rule.schedule.timeZone, weekly: rule.schedule.weekly },
    cooldown_s: rule.cooldownS, enabled: rule.enabled, created: formatIsoWithOffset(rule.createdAt), updated: formatIsoWithOffset(rule.updatedAt),
  };
}
export type AlertRuleResource = ReturnType<typeof alertRuleResource>;

const notFound = () => new ServiceError(errors.alertRuleNotFound);

/** The company's rule of an id as a path or a preview gives it (domain/resource-id.ts: any case), if any. */
export async function findRule(deps: Pick<AlertRuleDeps, 'store'>, companyId: string, id: unknown): Promise<StoredAlertRule | undefined> {
  const ruleId = storedIdOf(id);
  return ruleId === undefined ? undefined : findAlertRule(deps.store.db, companyId, ruleId);
}

/** The rule a body describes, its VINs checked against the company's vehicles. */
export async function checkedFields(deps: AlertRuleDeps, companyId: string, body: unknown): Promise<AlertRuleFields> {
  const parsed = parseAlertRule(body);
  if (!parsed.ok) throw new ServiceError(errors.alertRuleInvalid, { problem: parsed.problem });
  const vins = parsed.value.vins;
  if (vins !== null) {
    const owned = new Set<string>();
    for (let i = 0; i < vins.length; i += VIN_CHUNK) {
      for (const vin of (await companyVehicleOems(deps.store.db, companyId, vins.slice(i, i + VIN_CHUNK))).keys()) owned.add(vin);
    }
    const problem = foreignVinProblem(vins, owned);
    if (problem !== undefined) throw new ServiceError(errors.alertRuleInvalid, { problem });
  }
  return parsed.value;
}

/** `actor`, when given, is the audit trail's who (an API caller); the demo's own rules have none. */
export async function createAlertRule(deps: AlertRuleDeps, companyId: string, body: unknown, actor?: AuditActor): Promise<AlertRuleResource> {
  const fields = await checkedFields(deps, companyId, body);
  const max = deps.alertRules.maxPerCompany;
  if ((await countAlertRules(deps.store.db, companyId)) >= max) throw new ServiceError(errors.tooManyAlertRules, { max: String(max) });
  const id = randomUUID();
  const now = deps.clock.now();
  return alertRuleResource(await withAudit(deps.store.db, actor, changeEntry(companyId, 'alert_rule.created', id), now, (trx) => insertAlertRule(trx, companyId, id, fields, now)));
}

export async function listCompanyAlertRules(deps: Pick<AlertRuleDeps, 'store'>, companyId: string): Promise<AlertRuleResource[]> {
  return (await listAlertRules(deps.store.db, companyId)).map(alertRuleResource);
}

export async function readAlertRule(deps: Pick<AlertRuleDeps, 'store'>, companyId: string, id: string): Promise<AlertRuleResource> {
  const rule = await findRule(deps, companyId, id);
  if (rule === undefined) throw notFound();
  return alertRuleResource(rule);
}

/** PUT: the body replaces every field (what it leaves out takes its default); the id and creation stay. */
export async function replaceCompanyAlertRule(deps: AlertRuleDeps, companyId: string, id: string, body: unknown, actor?: AuditActor): Promise<AlertRuleResource> {
  const rule = await findRule(deps, companyId, id);
  if (rule === undefined) throw notFound();
  const fields = await checkedFields(deps, companyId, body);
  const now = deps.clock.now();
  // A rule deleted since it was found is 404 and records nothing: the entry commits with a replacement only.
  const replaced = await withAudit(deps.store.db, actor, changeEntry(companyId, 'alert_rule.replaced', rule.id), now,
    async (trx) => {
      const row = await replaceAlertRule(trx, companyId, rule.id, fields, now);
      if (row === undefined) throw notFound();
      return row;
    });
  return alertRuleResource(replaced);
}

export async function removeAlertRule(deps: Pick<AlertRuleDeps, 'store' | 'clock'>, companyId: string, id: string, actor?: AuditActor): Promise<void> {
  const ruleId = storedIdOf(id);
  if (ruleId === undefined) throw notFound();
  await withAudit(deps.store.db, actor, changeEntry(companyId, 'alert_rule.deleted', ruleId), deps.clock.now(), async (trx) => {
    if (!(await deleteAlertRule(trx, companyId, ruleId))) throw notFound();
  });
}
