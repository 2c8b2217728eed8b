/**
 * Webhooks sent from worker threads: the same transport interface as WebhookSender, with the HTTP work, a third of the dispatcher's thread per delivery
 * (building the request, the socket write, parsing the answer; docs/decisions/0013),
 * done in another thread. The dispatcher keeps the database, signing and bookkeeping.
 *
 * Posts made in one turn of the event loop go in one message, and answers come back the same
 * way. Each URL always goes to the same thread, so its keep-alive connections are reused. A post
 * with a lane (an endpoint) may be handed over while the lane's concurrency is on the wire: up to
 * `queuedPerLane` more wait in the thread and start as soon as one ends, so a fast receiver is
 * not kept waiting for the answer to cross to the dispatcher and the next post to cross back. A
 * thread is started on the first post to it; one that dies fails what it had under way (those
 * attempts are retried like any connection failure; the ones it held and had not sent yet count
 * as failed attempts too, which only a thread's death costs) and is started again on the next post.
 * Every post ends by its deadline and a few seconds more, even if its thread hangs: a thread that
 * has not answered by then is ended.
 */
import { Worker } from 'node:worker_threads';
import { SendFailed, type SendOptions, type SentAnswer } from './webhook-sender.js';
import { cancelledReply, type SendReply, type SendRequest, type SendThreadSettings, type ToSendThread } from './webhook-send-messages.js';

/** How long past its deadline a post waits for its thread before it fails on its own. */
const THREAD_GRACE_MS = 5_000;

interface Pending {
  readonly resolve: (answer: SentAnswer) => void;
  readonly reject: (error: SendFailed) => void;
  readonly giveUpAt: number;
}

/** One sending thread, the posts it has under way and the batch waiting to go to it. */
class SendThread {
  readonly #file: URL;
  readonly #settings: SendThreadSettings;
  readonly #onError: (error: Error) => void;
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #outgoing: SendRequest[] = [];
  #flushing = false;
  #watchdog: NodeJS.Timeout | undefined;

  constructor(file: URL, settings: SendThreadSettings, onError: (error: Error) => void) {
    this.#file = file;
    this.#settings = settings;
    this.#onError = onError;
  }

  post(request: SendRequest, pending: Pending): void {
    this.#pending.set(request[0], pending);
    this.#outgoing.push(request);
    if (!this.#flushing) {
      this.#flushing = true;
      setImmediate(this.#flush);
    }
    this.#watchdog ??= setInterval(this.#expire, 1000).unref();
  }

  readonly #flush = () => {
    this.#flushing = false;
    const batch = this.#outgoing;
    this.#outgoing = [];
    if (batch.length > 0) this.#send(batch);
  };

  #send(message: ToSendThread): void {
    this.#started().postMessage(message);
  }

  /** The lane's posts not yet on the wire fail `cancelled`: those still here at once, those waiting in the thread when it reads this. */
  cancel(lane: string): void {
    const outgoing = this.#outgoing;
    this.#outgoing = outgoing.filter((request) => request[6] !== lane);
    for (const [id, , , , , , key] of outgoing) if (key === lane) this.#settle(cancelledReply(id));
    if (this.#worker !== undefined) this.#send({ cancel: lane });
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#file, { workerData: this.#settings, name: 'webhook sender' });
    worker.on('message', (replies: SendReply[]) => {
      for (const reply of replies) this.#settle(reply);
    });
    worker.on('error', (error) => this.#onError(error));
    worker.on('exit', () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.failAll('the webhook sending thread stopped');
    });
    this.#worker = worker;
    return worker;
  }

  #settle(reply: SendReply): void {
    const pending = this.#pending.get(reply[0]);
    if (pending === undefined) return; // given up on already
    this.#pending.delete(reply[0]);
    const [, status, third, fourth, durationMs] = reply;
    if (status === -1) pending.reject(new SendFailed(third as SendFailed['kind'], fourth as string, durationMs));
    else pending.resolve({ status, retryAfter: third ?? undefined, body: fourth ?? undefined, durationMs });
    if (this.#pending.size === 0) this.#stopWatchdog();
  }

  /**
   * Fails the posts whose thread has not answered well past their deadline, and ends that thread
   * (what else it had under way fails with it; the next post starts another): a post given up on
   * here must not go out later, after its delivery may have been handed to someone else.
   */
  readonly #expire = () => {
    const now = Date.now();
    let expired = false;
    for (const [id, pending] of this.#pending) {
      if (pending.giveUpAt > now) continue;
      this.#pending.delete(id);
      expired = true;
      pending.reject(new SendFailed('timeout', 'the webhook sending thread did not answer'));
    }
    if (expired) {
      this.#onError(new Error('the webhook sending thread did not answer in time; it is started again'));
      const worker = this.#worker;
      this.#worker = undefined;
      this.failAll('the webhook sending thread did not answer in time');
      void worker?.terminate();
    }
    if (this.#pending.size === 0) this.#stopWatchdog();
  };

  #stopWatchdog(): void {
    clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }

  failAll(message: string): void {
    this.#outgoing = [];
    for (const pending of this.#pending.values()) pending.reject(new SendFailed('connection', message));
    this.#pending.clear();
    this.#stopWatchdog();
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.failAll('webhook sending stopped');
    await worker?.terminate();
  }
}

export interface ThreadedWebhookSenderOptions extends SendThreadSettings {
  /** Sending threads (at least 1). */
  readonly threads: number;
  /** Told when a thread fails (it is started again on the next post). */
  readonly onThreadError?: ((error: Error) => void) | undefined;
  /** The thread's compiled script (tests running from the sources name the built one). */
  readonly threadFile?: URL | undefined;
  /** Posts of a lane held beyond its concurrency (0: none). */
  readonly queuedPerLane?: number | undefined;
}

export class ThreadedWebhookSender {
  /** Posts of one lane it takes beyond the lane's concurrency (they wait here, in its thread). */
  readonly queuedPerLane: number;
  readonly #threads: SendThread[];
  #nextId = 0;
  #closed = false;

  constructor(options: ThreadedWebhookSenderOptions) {
    const settings: SendThreadSettings = { allowCidrs: [...options.allowCidrs], userAgent: options.userAgent };
    const onError = options.onThreadError ?? (() => {});
    const file = options.threadFile ?? new URL('./webhook-send-thread.js', import.meta.url);
    this.queuedPerLane = options.queuedPerLane ?? 0;
    this.#threads = Array.from({ length: Math.max(1, options.threads) }, () => new SendThread(file, settings, onError));
  }

  post(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SentAnswer> {
    if (this.#closed) return Promise.reject(new SendFailed('connection', 'webhook sending stopped'));
    const id = this.#nextId++;
    const thread = this.#threads.length === 1 ? this.#threads[0]! : this.#threads[hashOf(url) % this.#threads.length]!;
    const lane = options.lane;
    // A post in a lane may wait for the lane's posts ahead of it: a deadline for each round of them.
    const waitRounds = lane === undefined ? 0 : Math.ceil(this.queuedPerLane / Math.max(1, lane.concurrency));
    const giveUpAt = Date.now() + (1 + waitRounds) * options.timeoutMs + THREAD_GRACE_MS;
    return new Promise((resolve, reject) => {
      thread.post([id, url, headers, body, options.timeoutMs, options.readBytes, lane?.key ?? '', lane?.concurrency ?? 0], { resolve, reject, giveUpAt });
    });
  }

  /**
   * Posts of the lane that are not on the wire yet are not sent: they fail `cancelled` (not an
   * attempt). A lane answered 410 cancels what it holds on its own, and every post to it after,
   * until this is called: the dispatcher calls it when it has stopped the lane.
   */
  cancel(lane: string): void {
    if (this.#closed) return;
    for (const thread of this.#threads) thread.cancel(lane);
  }

  /** Stops the threads; what they had under way fails (and is sent again later). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}

/** FNV-1a: a stable thread for each URL. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
