/**
 * The console's alert history: a company's alert.* and geofence.* events, newest first, a page
 * at a time backwards from a cursor, each seen exactly as GET /events shows it to the
 * application (visibleEvents: the datapoint rules). The filters are the feed's, checked by the
 * same code, so a wrong `types` or `vin` answers the same text.
 */
import { EVENT_TYPES, type ServiceEvent } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { encodeEventCursor } from '../domain/event-cursor.js';
import type { EventViewer } from '../domain/event-visibility.js';
import type { StoreConnection } from '../store/connection.js';
import { readCompanyEventsBefore } from '../store/events-queries.js';
import { parseCursor, parseFeedSelection, visibleEvents } from './read-event-feed.js';

/** 100 a page: the screen shows one page at a time, and a page is judged for visibility whole. */
export const MAX_ALERTS_PAGE = 100;
export const DEFAULT_ALERTS_PAGE = 50;

/** The types the history holds: what a rule or a fence fired. */
export const ALERT_HISTORY_TYPES: readonly string[] = EVENT_TYPES.filter((t) => t.startsWith('alert.') || t.startsWith('geofence.'));

export interface AlertHistoryQueryText {
  readonly before?: string | undefined;
  readonly types?: string | undefined;
  readonly vin?: string | undefined;
  readonly limit?: string | undefined;
}

export interface AlertHistoryQuery {
  /** Only positions below this; undefined: from the newest. */
  readonly before: number | undefined;
  /** The asked types within the history's; empty when every asked type lies outside it. */
  readonly types: readonly string[];
  readonly vin: string | undefined;
  readonly limit: number;
}

export interface AlertHistoryPage {
  readonly data: ServiceEvent[];
  /** Pass as `before` for the next older page; null when there is none. */
  readonly next_cursor: string | null;
}

export function parseAlertHistoryQuery(text: AlertHistoryQueryText): AlertHistoryQuery {
  const selection = parseFeedSelection(text);
  let limit = DEFAULT_ALERTS_PAGE;
  if (text.limit !== undefined) {
    if (!/^\d{1,3}$/.test(text.limit) || Number(text.limit) < 1 || Number(text.limit) > MAX_ALERTS_PAGE) throw new ServiceError(errors.consoleAlertsLimitInvalid);
    limit = Number(text.limit);
  }
  // A known type outside the history (trip.ended) is not an error, as a feed filter matching
  // nothing is not: it selects nothing.
  const types = selection.types === undefined ? ALERT_HISTORY_TYPES : selection.types.filter((t) => ALERT_HISTORY_TYPES.includes(t));
  return { before: text.before === undefined ? undefined : parseCursor(text.before), types, vin: selection.vin, limit };
}

export async function readAlertHistory(store: StoreConnection, viewer: EventViewer, query: AlertHistoryQuery): Promise<AlertHistoryPage> {
  if (query.types.length === 0) return { data: [], next_cursor: null };
  const rows = await readCompanyEventsBefore(store, { ...viewer, types: query.types, vin: query.vin }, query.before, query.limit + 1);
  const hasMore = rows.length > query.limit;
  const page = hasMore ? rows.slice(0, query.limit) : rows;
  // The cursor follows the rows read, not those shown: an event hidden from this company still
  // moves the page on, so a page may hold fewer than `limit` and the next one repeats nothing.
  return { data: await visibleEvents(store, viewer, page), next_cursor: hasMore ? encodeEventCursor(page.at(-1)!.position) : null };
}
