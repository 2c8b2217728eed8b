/**
 * The enabled alert rules of every company with rules, compiled (schedules with their offset
 * caches), kept current by the revision every change of a company's rules raises in its own
 * transaction, read only when their total moved (definition-totals.ts), as company-fence-sets.ts
 * does for geofences.
 */
import { compileAlertRule, type CompiledAlertRule } from '../domain/alerts/judge-alert.js';
import { listRulesForWatch, readAlertRuleRevisions } from '../store/alert-rules-queries.js';
import type { StoreConnection } from '../store/connection.js';
import { readDefinitionTotals } from '../store/definition-totals.js';

export class CompanyRuleSets {
  readonly #store: StoreConnection;
  /** The revisions' total the kept sets were brought up to date at, and whether any company had one then. */
  #total: string | undefined;
  #any = false;
  readonly #companies = new Map<string, { revision: number; rules: readonly CompiledAlertRule[] }>();

  constructor(store: StoreConnection) {
    this.#store = store;
  }

  /** Brings the kept rules up to date; false when no company has an enabled rule. */
  async refresh(total?: string): Promise<boolean> {
    // The total first: a change committed after it moves it again, so the next pass reloads.
    const now = total ?? (await readDefinitionTotals(this.#store.db)).rules;
    if (now === this.#total) return this.#any;
    const revisions = await readAlertRuleRevisions(this.#store.db);
    for (const company of this.#companies.keys()) if (!revisions.has(company)) this.#companies.delete(company);
    let any = false;
    for (const [company, revision] of revisions) {
      let kept = this.#companies.get(company);
      if (kept?.revision !== revision) {
        kept = { revision, rules: (await listRulesForWatch(this.#store.db, company)).map(compileAlertRule) };
        this.#companies.set(company, kept);
      }
      if (kept.rules.length > 0) any = true;
    }
    this.#total = now;
    this.#any = any;
    return any;
  }

  of(companyId: string): readonly CompiledAlertRule[] {
    return this.#companies.get(companyId)?.rules ?? [];
  }

  /** Every company's rules, for the sweep of no_data. */
  entries(): IterableIterator<[string, { readonly rules: readonly CompiledAlertRule[] }]> {
    return this.#companies.entries();
  }
}
