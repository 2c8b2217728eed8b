/**
 * The Alerts screen's list: the newest page first, older pages on demand, and every 10 s the
 * newest page again, whose events not yet shown go on top (the older pages already read stay).
 * A new kind filter starts again from the newest.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { apiCall } from '../../api.js';
import type { AlertEvent, AlertsPage } from './alert-types.js';

export const REFRESH_MS = 10_000;
const PAGE = 50;

export interface AlertHistory {
  readonly events: readonly AlertEvent[] | undefined;
  /** Whether an older page may exist. */
  readonly hasOlder: boolean;
  readonly busy: boolean;
  readonly error: Error | undefined;
  /** When the newest page was last read (browser clock, epoch ms). */
  readonly refreshedAt: number | undefined;
  older(): void;
  reload(): void;
}

const pagePath = (type: string, before?: string) => {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (type !== '') query.set('types', type);
  if (before !== undefined) query.set('before', before);
  return `/alerts?${query.toString()}`;
};

/** `fresh` (the newest page) over what is shown: what is new on top, the rest as it was. */
function mergeNewest(shown: readonly AlertEvent[], fresh: readonly AlertEvent[]): AlertEvent[] | undefined {
  const known = new Set(shown.map((e) => e.id));
  const overlap = fresh.findIndex((e) => known.has(e.id));
  // More new events than a page: the list starts again from the newest.
  if (overlap === -1 && shown.length > 0 && fresh.length >= PAGE) return undefined;
  const added = (overlap === -1 ? fresh : fresh.slice(0, overlap)).filter((e) => !known.has(e.id));
  return [...added, ...shown];
}

export function useAlertHistory(type: string): AlertHistory {
  const [events, setEvents] = useState<AlertEvent[] | undefined>(undefined);
  const [cursor, setCursor] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [refreshedAt, setRefreshedAt] = useState<number | undefined>(undefined);
  // The filter the shown events were read for: until the new filter's first page has come, none
  // are shown, never the old filter's under the new one.
  const [loadedFor, setLoadedFor] = useState<string | undefined>(undefined);
  // The filter a request was made for: an answer for an older filter is dropped.
  const current = useRef(type);
  current.current = type;
  const eventsRef = useRef(events);
  eventsRef.current = events;

  const readNewest = useCallback(async (restart: boolean) => {
    const asked = type;
    try {
      const page = await apiCall<AlertsPage>('GET', pagePath(asked));
      if (current.current !== asked) return;
      const merged = restart || eventsRef.current === undefined ? undefined : mergeNewest(eventsRef.current, page.data);
      if (merged === undefined) {
        setEvents(page.data);
        setCursor(page.next_cursor);
        setLoadedFor(asked);
      } else {
        setEvents(merged);
      }
      setError(undefined);
      setRefreshedAt(Date.now());
    } catch (e) {
      if (current.current === asked) setError(e as Error);
    }
  }, [type]);

  useEffect(() => {
    setEvents(undefined);
    setCursor(null);
    void readNewest(true);
    const timer = setInterval(() => { void readNewest(false); }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [readNewest]);

  const older = useCallback(() => {
    if (cursor === null || busy) return;
    const asked = type;
    setBusy(true);
    apiCall<AlertsPage>('GET', pagePath(asked, cursor)).then((page) => {
      if (current.current !== asked) return;
      setEvents((shown) => {
        const known = new Set((shown ?? []).map((e) => e.id));
        return [...(shown ?? []), ...page.data.filter((e) => !known.has(e.id))];
      });
      setCursor(page.next_cursor);
    }, (e: Error) => setError(e)).finally(() => setBusy(false));
  }, [cursor, busy, type]);

  const reload = useCallback(() => { void readNewest(true); }, [readNewest]);
  return { events: loadedFor === type ? events : undefined, hasOlder: cursor !== null, busy, error, refreshedAt, older, reload };
}
