/**
 * The events a preview answers: shown as the company would see them (drafts-as-seen.ts), oldest
 * first, at most `MAX_PREVIEW_EVENTS`. The oldest are kept: a preview reads as the history it
 * replays, and a rule that fires that often over its first days is what the answer must show
 * (the rest would be more of the same); `eventsTruncated` says some were left out.
 */
import type { ServiceEvent } from '@telematics/contract';
import type { EventDraft } from '../domain/events.js';
import type { StoreConnection } from '../store/connection.js';
import { draftsAsSeen } from './drafts-as-seen.js';

/** About 1 MB of JSON: a page a browser or a script takes at once. */
export const MAX_PREVIEW_EVENTS = 1000;

export async function previewEvents(
  store: StoreConnection, companyId: string, drafts: EventDraft[],
): Promise<{ readonly events: ServiceEvent[]; readonly eventsTruncated: boolean }> {
  const seen = await draftsAsSeen(store, companyId, drafts);
  return { events: seen.slice(0, MAX_PREVIEW_EVENTS), eventsTruncated: seen.length > MAX_PREVIEW_EVENTS };
}
