/**
 * GET /events (a feed read with a cursor) and GET /events/stream (Server-Sent Events), both as
 * async iterators of typed events. Delivery is at least once: deduplicate by `event.id`.
 */
import { sleep } from './abort.js';
import { ConnectionError, RateLimitError, ServerError, TelematicsError, TimeoutError } from './errors.js';
import { readServerSentEvents, type SseState } from './sse.js';
import type { Transport } from './transport.js';
import type { EventsPage, EventType, RequestOptions, TelematicsEvent } from './types.js';

export interface EventSelection {
  /** Only these types; all when absent. */
  readonly types?: readonly EventType[];
  /** Only this vehicle's events. */
  readonly vin?: string;
}

export interface EventPageQuery extends EventSelection {
  /** A `next_cursor` (or stream id) from earlier; from the oldest event kept when absent. */
  readonly after?: string;
  /** Events per page, 1 to 500 (default 100). */
  readonly limit?: number;
}

export interface EventStreamOptions extends EventSelection {
  /** Resume after this cursor; from now when absent. */
  readonly after?: string;
  /** Ends the stream (the iteration just stops). */
  readonly signal?: AbortSignal;
  /** Wait before reconnecting, doubled after each failed try (to 30 s); default: what the service says (5 s). */
  readonly reconnectDelayMs?: number;
}

/** A connection with no byte for this long (the service writes one every 15 s) is taken as dead. */
const IDLE_MS = 45_000;
const MAX_RECONNECT_DELAY_MS = 30_000;

const selection = (query: EventSelection) => ({ types: query.types?.join(','), vin: query.vin });

/** Events after a cursor, page by page until caught up; `cursor` is where to resume next time. */
export class EventList implements AsyncIterable<TelematicsEvent> {
  #cursor: string | undefined;

  /** @internal */

  constructor(private readonly events: Events, private readonly query: EventPageQuery, private readonly options: RequestOptions) {
    this.#cursor = query.after;
  }

  /** After iterating: the `next_cursor` of the last page whose events were all handed out. */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TelematicsEvent> {
    for (;;) {
      const page = await this.events.page({ ...this.query, after: this.#cursor }, this.options);
      yield* page.data;
      this.#cursor = page.next_cursor;
      if (!page.has_more) return;
    }
  }

  /** At most `limit` events (a limit is required: the feed of a busy fleet is long). */
  async toArray({ limit }: { readonly limit: number }): Promise<TelematicsEvent[]> {
    const out: TelematicsEvent[] = [];
    if (limit <= 0) return out;
    for await (const event of this) {
      out.push(event);
      if (out.length >= limit) break;
    }
    return out;
  }
}

/** The live stream, reconnecting after the last event received (Last-Event-ID) when cut. */
export class EventStream implements AsyncIterable<TelematicsEvent> {
  readonly #state: SseState;

  /** @internal */
  constructor(private readonly transport: Transport, private readonly options: EventStreamOptions) {
    this.#state = { lastEventId: options.after, retryMs: undefined };
  }

  /**
   * The cursor of the last event received (or, before the first, of where the stream started):
   * pass it as `after` to resume in another process.
   */
  get lastEventId(): string | undefined {
    return this.#state.lastEventId;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TelematicsEvent> {
    const { signal } = this.options;
    let quietReconnects = 0;
    while (!signal?.aborted) {
      // Its own signal: the caller's ends it, and so does a connection gone silent.
      const connection = new AbortController();
      const follow = () => connection.abort(signal?.reason);
      signal?.addEventListener('abort', follow, { once: true });
      let opened: Awaited<ReturnType<Transport['open']>> | undefined;
      try {
        const lastEventId = this.#state.lastEventId;
        opened = await this.transport.open({
          method: 'GET', path: '/events/stream', query: selection(this.options), retry: 'read', signal: connection.signal,
          headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
        });
      } catch (error) {
        signal?.removeEventListener('abort', follow);
        if (signal?.aborted) return;
        // Gone, refused credentials, a bad selection, too many streams open: reconnecting would not help.
        const transient = error instanceof ConnectionError || error instanceof TimeoutError || error instanceof ServerError
          || (error instanceof RateLimitError && error.code !== 'TLM_TOO_MANY_EVENT_STREAMS');
        if (!transient) throw error;
        await this.#pause(quietReconnects++, error.retryAfter);
        continue;
      }
      // The service writes at least a keep-alive every 15 s: silence past IDLE_MS is a dead connection.
      let idle = setTimeout(() => connection.abort(), IDLE_MS);
      const heard = () => {
        clearTimeout(idle);
        idle = setTimeout(() => connection.abort(), IDLE_MS);
      };
      try {
        for await (const message of readServerSentEvents(opened.response.body!, this.#state, heard)) {
          quietReconnects = 0;
          yield parseEvent(message.data);
        }
      } catch (error) {
        if (error instanceof TelematicsError) throw error;
        // Cut mid-stream (or gone silent): resume after the last complete event.
      } finally {
        clearTimeout(idle);
        signal?.removeEventListener('abort', follow);
        opened.release();
      }
      if (signal?.aborted) return;
      await this.#pause(quietReconnects++, undefined);
    }
  }

  /** The service's `retry:` (5 s) unless `reconnectDelayMs` says otherwise, longer after repeated failures. */
  async #pause(attempt: number, retryAfterSeconds: number | undefined): Promise<void> {
    const base = this.options.reconnectDelayMs ?? this.#state.retryMs ?? 1000;
    const ms = retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : Math.min(MAX_RECONNECT_DELAY_MS, base * 2 ** Math.min(attempt, 5));
    await sleep(ms, this.options.signal).catch(() => {});
  }
}

function parseEvent(data: string): TelematicsEvent {
  try {
    return JSON.parse(data) as TelematicsEvent;
  } catch (cause) {
    throw new ServerError({ detail: `GET /events/stream sent an event that is not JSON: ${data.slice(0, 100)}`, cause });
  }
}

export class Events {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** One page of the feed. */
  async page(query: EventPageQuery = {}, options: RequestOptions = {}): Promise<EventsPage> {
    const params = { ...selection(query), after: query.after, limit: query.limit };
    return (await this.transport.json<EventsPage>({ method: 'GET', path: '/events', query: params, retry: 'read', ...options })).data;
  }

  /** Every event after `after` (or from the oldest kept), page by page, until caught up. */
  list(query: EventPageQuery = {}, options: RequestOptions = {}): EventList {
    return new EventList(this, query, options);
  }

  /** Events as they happen, for as long as you iterate (or until `signal` aborts). */
  stream(options: EventStreamOptions = {}): EventStream {
    return new EventStream(this.transport, options);
  }
}
