/**
 * The fences of every company with geofences, compiled and indexed, kept current by the revision
 * every change of a company's geofences raises in its own transaction: a pass reads the revisions
 * (one small table) only when their total moved (definition-totals.ts), and reloads only the
 * companies whose revision moved, recompiling only the
 * fences whose `updated_at` changed (compiling costs ~10 µs a fence, indexing 10,000 a few ms).
 * A revision read before the fences it reloads can only make the next pass reload again.
 */
import { compileFence } from '../domain/geofences/compile-fence.js';
import type { FenceSet, WatchedFence } from '../domain/geofences/fence-set.js';
import { indexedFenceSet } from '../domain/geofences/indexed-fence-set.js';
import { shapeOfStored } from '../domain/geofences/stored-shape.js';
import type { StoreConnection } from '../store/connection.js';
import { readDefinitionTotals } from '../store/definition-totals.js';
import { listEvaluatorFences } from '../store/geofences-queries.js';
import { readAllGeofenceRevisions } from '../store/watch-queries.js';
import type { FenceSets } from './geofence-watch.js';

interface KeptCompany {
  readonly revision: number;
  readonly set: FenceSet;
  readonly compiled: ReadonlyMap<string, { readonly updatedAt: number; readonly fence: WatchedFence }>;
}

export class CompanyFenceSets implements FenceSets {
  readonly #store: StoreConnection;
  /** The revisions' total the kept sets were brought up to date at, and whether any company had one then. */
  #total: string | undefined;
  #any = false;
  readonly #companies = new Map<string, KeptCompany>();

  constructor(store: StoreConnection) {
    this.#store = store;
  }

  async refresh(total?: string): Promise<boolean> {
    // The total first: a change committed after it moves it again, so the next pass reloads.
    const now = total ?? (await readDefinitionTotals(this.#store.db)).fences;
    if (now === this.#total) return this.#any;
    const revisions = await readAllGeofenceRevisions(this.#store.db);
    for (const company of this.#companies.keys()) if (!revisions.has(company)) this.#companies.delete(company);
    let any = false;
    for (const [company, revision] of revisions) {
      let kept = this.#companies.get(company);
      if (kept?.revision !== revision) {
        kept = await this.#load(company, revision, kept);
        this.#companies.set(company, kept);
      }
      if (kept.set.size > 0) any = true;
    }
    this.#total = now;
    this.#any = any;
    return any;
  }

  of(companyId: string): FenceSet | undefined {
    return this.#companies.get(companyId)?.set;
  }

  async #load(companyId: string, revision: number, before: KeptCompany | undefined): Promise<KeptCompany> {
    const compiled = new Map<string, { updatedAt: number; fence: WatchedFence }>();
    for (const row of await listEvaluatorFences(this.#store.db, companyId)) {
      const updatedAt = Number(row.updated_at);
      const old = before?.compiled.get(row.id);
      const fence = old !== undefined && old.updatedAt === updatedAt && old.fence.name === row.name
        ? old.fence
        : { id: row.id, name: row.name, fence: compileFence(shapeOfStored(row)) };
      compiled.set(row.id, { updatedAt, fence });
    }
    return { revision, compiled, set: indexedFenceSet([...compiled.values()].map((c) => c.fence)) };
  }
}
