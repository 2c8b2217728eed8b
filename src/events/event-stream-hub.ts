/**
 * The live side of the feed (GET /events/stream): one poller per process for every open stream.
 * Each tick numbers what has committed and reads the highest position; while nothing new has
 * committed, that is the whole cost of a tick, however many streams are open. When something
 * has, each stream reads its own company's rows after its position (the feed's query and
 * visibility rules), so a stream that starts behind, or falls behind, catches up the same way.
 * Streams of other processes see the same events: the database is the only channel.
 */
import type { ServiceEvent } from '@telematics/contract';
import { encodeEventCursor } from '../domain/event-cursor.js';
import type { EventViewer } from '../domain/event-visibility.js';
import type { StoreConnection } from '../store/connection.js';
import { lastEventPosition, readFeedAfter } from '../store/events-queries.js';
import { visibleEvents, type FeedSelection } from './read-event-feed.js';

const PAGE = 500;

export interface StreamedEvent {
  /** The cursor just after this event: the SSE `id`, which a reconnect sends back as Last-Event-ID. */
  readonly cursor: string;
  readonly event: ServiceEvent;
}

export interface StreamSink {
  /** Takes events in order; false when the client is not reading (the hub waits for `ready`). */
  send(events: readonly StreamedEvent[]): boolean;
  /** Resolves when a sink that returned false can take more. */
  ready(): Promise<void>;
}

interface Subscription {
  readonly viewer: EventViewer;
  readonly selection: FeedSelection;
  position: number;
  readonly sink: StreamSink;
  blocked: boolean;
}

export interface EventStreamHubOptions {
  /** How often the outbox is looked at while streams are open, ms. */
  readonly pollMs: number;
  readonly onError: (error: unknown) => void;
}

export class EventStreamHub {
  readonly #store: StoreConnection;
  readonly #options: EventStreamHubOptions;
  readonly #subscriptions = new Set<Subscription>();
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #again = false;
  #closed = false;

  constructor(store: StoreConnection, options: EventStreamHubOptions) {
    this.#store = store;
    this.#options = options;
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  /**
   * Streams the viewer's events after `position` to `sink` until `end` is called. `position()` is
   * how far the outbox has been looked at for it: every event up to there that it may see was sent.
   */
  subscribe(viewer: EventViewer, selection: FeedSelection, position: number, sink: StreamSink): { end(): void; position(): number } {
    const subscription: Subscription = { viewer, selection, position, sink, blocked: false };
    this.#subscriptions.add(subscription);
    this.#wake();
    return {
      end: () => { this.#subscriptions.delete(subscription); },
      position: () => subscription.position,
    };
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#subscriptions.clear();
  }

  /** Ticks as soon as possible (a new stream, a client reading again). */
  #wake(): void {
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), 0);
  }

  async #tick(): Promise<void> {
    if (this.#closed || this.#subscriptions.size === 0) return;
    this.#ticking = true;
    this.#again = false;
    try {
      const end = await lastEventPosition(this.#store);
      for (const subscription of [...this.#subscriptions]) {
        if (subscription.blocked || subscription.position >= end || !this.#subscriptions.has(subscription)) continue;
        await this.#catchUp(subscription, end);
      }
    } catch (error) {
      this.#options.onError(error);
    } finally {
      this.#ticking = false;
      if (!this.#closed && this.#subscriptions.size > 0) this.#timer = setTimeout(() => void this.#tick(), this.#again ? 0 : this.#options.pollMs);
    }
  }

  /** Sends the subscription what it may see up to `end`, a page at a time, until its client stops reading. */
  async #catchUp(subscription: Subscription, end: number): Promise<void> {
    const { viewer, selection } = subscription;
    while (subscription.position < end && this.#subscriptions.has(subscription)) {
      const rows = await readFeedAfter(this.#store, { ...viewer, ...selection }, subscription.position, PAGE, end);
      const last = rows.length < PAGE ? end : rows.at(-1)!.position;
      const events = await visibleEvents(this.#store, viewer, rows);
      const byId = new Map(rows.map((r) => [r.id, r.position]));
      const streamed = events.map((event) => ({ cursor: encodeEventCursor(byId.get(event.id)!), event }));
      subscription.position = last;
      // The stream may have ended while its page was read.
      if (!this.#subscriptions.has(subscription)) return;
      if (streamed.length > 0 && !subscription.sink.send(streamed)) {
        subscription.blocked = true;
        void subscription.sink.ready().then(() => {
          subscription.blocked = false;
          this.#wake();
        });
        return;
      }
    }
  }
}
