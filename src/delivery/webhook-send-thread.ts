/**
 * A thread that sends webhooks (threaded-webhook-sender.ts starts it): one WebhookSender, built
 * here from the settings it was started with (a dial policy holds functions, which cannot cross
 * threads), so the dial guard judges every address in this thread as it does in the
 * dispatcher's. Requests come in batches; answers go back in batches, one message per turn of
 * this thread's event loop, because a message costs about as much as building a request.
 *
 * Each endpoint's posts beyond its concurrency wait here, in its lane, and the next one starts as
 * soon as one ends: the receiver never waits for a message to reach the dispatcher's thread and
 * the next request to come back (two thread wake-ups an attempt, which held delivery to a fast
 * receiver at a third of what one thread posting alone reaches; docs/decisions/0013).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { allowListOf, webhookDialPolicy } from '../domain/webhook-url.js';
import { SendFailed, WebhookSender } from './webhook-sender.js';
import { cancelledReply, type SendReply, type SendRequest, type SendThreadSettings, type ToSendThread } from './webhook-send-messages.js';

const settings = workerData as SendThreadSettings;
const allowList = allowListOf(settings.allowCidrs);
const sender = new WebhookSender({
  policies: { 'https:': webhookDialPolicy(allowList, 'https:'), 'http:': webhookDialPolicy(allowList, 'http:') },
  userAgent: settings.userAgent,
});
const port = parentPort!;

let replies: SendReply[] = [];
let flushing = false;
const flush = () => {
  flushing = false;
  const batch = replies;
  replies = [];
  port.postMessage(batch);
};
const reply = (answer: SendReply) => {
  replies.push(answer);
  if (!flushing) {
    flushing = true;
    setImmediate(flush);
  }
};

/** A lane's posts on the wire and those waiting for one of them to end. */
interface Lane {
  running: number;
  readonly waiting: SendRequest[];
}
const lanes = new Map<string, Lane>();
/**
 * Lanes answered 410 (gone) whose stop the dispatcher has not confirmed yet (its cancel): what
 * it posted meanwhile is not sent either, so a receiver that said 410 gets only the posts that
 * were on the wire then, as from the dispatcher's own thread.
 */
const gone = new Set<string>();

function cancelWaiting(key: string): void {
  for (const [id] of lanes.get(key)?.waiting.splice(0) ?? []) reply(cancelledReply(id));
}

function send(request: SendRequest, lane: Lane | undefined): void {
  const [id, url, headers, body, timeoutMs, readBytes, key] = request;
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  let sent;
  try {
    sent = sender.post(url, headers, body, { timeoutMs, readBytes });
  } catch (error) {
    sent = Promise.reject(error);
  }
  sent.then(
    (answer) => {
      if (answer.status === 410 && lane !== undefined) {
        gone.add(key);
        cancelWaiting(key);
      }
      reply([id, answer.status, answer.retryAfter ?? null, answer.body ?? null, took()]);
    },
    (error: unknown) => reply([id, -1, error instanceof SendFailed ? error.kind : 'connection', error instanceof Error ? error.message : String(error), took()]),
  ).finally(() => {
    if (lane === undefined) return;
    const next = lane.waiting.shift();
    if (next !== undefined) send(next, lane);
    else if (--lane.running === 0) lanes.delete(key);
  });
}

port.on('message', (message: ToSendThread) => {
  if (!Array.isArray(message)) {
    const key = (message as { cancel: string }).cancel;
    cancelWaiting(key);
    gone.delete(key);
    return;
  }
  for (const request of message as readonly SendRequest[]) {
    const key = request[6];
    if (key === '') {
      send(request, undefined);
      continue;
    }
    if (gone.has(key)) {
      reply(cancelledReply(request[0]));
      continue;
    }
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { running: 0, waiting: [] };
      lanes.set(key, lane);
    }
    if (lane.running < request[7]) {
      lane.running += 1;
      send(request, lane);
    } else {
      lane.waiting.push(request);
    }
  }
});
