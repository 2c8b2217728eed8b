/**
 * GET /events: a page of the events an application may see, oldest first, with a cursor to read
 * on from (OPERATIONS.md "Events", D12). Pages follow outbox positions, which only grow in the
 * order events become visible (store/event-appends.ts), so a reader resuming from any cursor
 * sees every event once. A cursor from before events retention has dropped is refused (410)
 * rather than answered with a silent gap.
 */
import { DEFAULT_EVENTS_PAGE, isEventType, MAX_EVENTS_PAGE, type EventsPage, type ServiceEvent } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { decodeEventCursor, encodeEventCursor } from '../domain/event-cursor.js';
import { dependsOnDatapoints, eventAsSeenBy, type EventViewer } from '../domain/event-visibility.js';
import { isValidVin } from '../domain/vin.js';
import type { StoreConnection } from '../store/connection.js';
import { lastEventPosition, prunedThrough, readFeedAfter, type StoredEvent } from '../store/events-queries.js';
import { datapointAllowances } from './datapoint-allowances.js';

export interface FeedQueryText {
  readonly after?: string | undefined;
  readonly types?: string | undefined;
  readonly vin?: string | undefined;
  readonly limit?: string | undefined;
}

export interface FeedSelection {
  readonly types: readonly string[] | undefined;
  readonly vin: string | undefined;
}

export interface FeedQuery extends FeedSelection {
  /** The position to read after; undefined: from the oldest event kept. */
  readonly after: number | undefined;
  readonly limit: number;
}

/** The filters both the feed and the stream take (`types`, `vin`). */
export function parseFeedSelection(text: Pick<FeedQueryText, 'types' | 'vin'>): FeedSelection {
  let types: string[] | undefined;
  if (text.types !== undefined) {
    types = [...new Set(text.types.split(',').map((t) => t.trim()).filter((t) => t !== ''))];
    const unknown = types.find((t) => !isEventType(t));
    if (unknown !== undefined) throw new ServiceError(errors.unknownEventType, { name: unknown.slice(0, 64) });
    if (types.length === 0) types = undefined;
  }
  if (text.vin !== undefined && !isValidVin(text.vin)) throw new ServiceError(errors.eventVinInvalid);
  return { types, vin: text.vin };
}

/** A cursor text as a position; throws the catalogue's error when it is not one of ours. */
export function parseCursor(text: string): number {
  const position = decodeEventCursor(text);
  if (position === undefined) throw new ServiceError(errors.eventCursorInvalid);
  return position;
}

export function parseFeedQuery(text: FeedQueryText): FeedQuery {
  const selection = parseFeedSelection(text);
  let limit = DEFAULT_EVENTS_PAGE;
  if (text.limit !== undefined) {
    if (!/^\d{1,3}$/.test(text.limit) || Number(text.limit) < 1 || Number(text.limit) > MAX_EVENTS_PAGE) throw new ServiceError(errors.eventLimitInvalid);
    limit = Number(text.limit);
  }
  return { ...selection, after: text.after === undefined ? undefined : parseCursor(text.after), limit };
}

/** Where a reader starts: after its cursor (410 when retention dropped events after it), else after what was dropped. */
export async function feedStart(store: StoreConnection, after: number | undefined): Promise<number> {
  const pruned = await prunedThrough(store.db);
  if (after === undefined) return pruned;
  if (after < pruned) throw new ServiceError(errors.eventCursorExpired);
  return after;
}

export async function readEventFeed(store: StoreConnection, viewer: EventViewer, query: FeedQuery): Promise<EventsPage> {
  const start = await feedStart(store, query.after);
  // Everything up to `end` is numbered and was looked at: an empty or short page still moves the
  // cursor there, so a reader of a quiet company is not left behind retention by others' events.
  const end = await lastEventPosition(store);
  const rows = await readFeedAfter(store, { ...viewer, ...query }, start, query.limit + 1, end);
  // Retention may have run while the page was read: a page with a hole in it is not answered.
  if (query.after !== undefined) await feedStart(store, query.after);
  const hasMore = rows.length > query.limit;
  const page = hasMore ? rows.slice(0, query.limit) : rows;
  return {
    data: await visibleEvents(store, viewer, page),
    next_cursor: encodeEventCursor(hasMore ? page.at(-1)!.position : Math.max(start, end)),
    has_more: hasMore,
  };
}

/** The rows as the viewer sees them, those it may not see left out. */
export async function visibleEvents(store: StoreConnection, viewer: EventViewer, rows: readonly StoredEvent[]): Promise<ServiceEvent[]> {
  const allowances = await datapointAllowances(store, viewer.companyId, rows.filter((r) => dependsOnDatapoints(r.type)).map((r) => r.vin));
  const events: ServiceEvent[] = [];
  for (const row of rows) {
    const event = eventAsSeenBy(row, viewer, allowances.get(row.vin) ?? (() => false));
    if (event) events.push(event);
  }
  return events;
}
