/**
 * Events not written, shown as the company's applications would see them once written: oldest
 * first, each through the one visibility rule (domain/event-visibility.ts) with what the company
 * may read of its vehicle. For the previews, which answer events without writing them.
 */
import type { ServiceEvent } from '@telematics/contract';
import { eventAsSeenBy } from '../domain/event-visibility.js';
import type { EventDraft } from '../domain/events.js';
import type { StoreConnection } from '../store/connection.js';
import { datapointAllowances } from './datapoint-allowances.js';

export async function draftsAsSeen(store: StoreConnection, companyId: string, drafts: EventDraft[]): Promise<ServiceEvent[]> {
  const allowed = await datapointAllowances(store, companyId, new Set(drafts.map((d) => d.vin)));
  // No application: command events, the only ones an application owns, are never previewed.
  const viewer = { companyId, applicationId: '' };
  return drafts
    .sort((a, b) => a.occurredAt - b.occurredAt || a.vin.localeCompare(b.vin))
    .map((d) => eventAsSeenBy(d, viewer, allowed.get(d.vin) ?? (() => false)))
    .filter((e): e is ServiceEvent => e !== undefined);
}
