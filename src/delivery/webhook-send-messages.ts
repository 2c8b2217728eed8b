/** What crosses between the dispatcher's thread and a sending thread (webhook-send-thread.ts). */
import type { SendFailed } from './webhook-sender.js';

/** What a sending thread is started with: only what can be copied to it. */
export interface SendThreadSettings {
  /** `--webhook-allow-cidr`, from which the thread builds its dial policies. */
  readonly allowCidrs: readonly string[];
  readonly userAgent: string;
}

/**
 * One POST: request id, URL, headers, body, deadline (ms), bytes of the answer's body to return,
 * and its lane (an endpoint: at most `laneConcurrency` of a lane's posts are on the wire at once,
 * the rest wait in the thread and start the moment one ends; an empty lane waits for nothing).
 */
export type SendRequest = readonly [
  id: number, url: string, headers: Record<string, string>, body: string, timeoutMs: number, readBytes: number, lane: string, laneConcurrency: number,
];

/** To a sending thread: posts to make, or a lane whose waiting posts are not to be sent (answered `cancelled`). */
export type ToSendThread = readonly SendRequest[] | { readonly cancel: string };

/**
 * Its answer (`status` ≥ 0), or why none came (`-1`, the failure's kind and message); either way
 * how long it was on the wire (ms, from the thread starting it, not from its wait in a lane).
 */
export type SendReply =
  | readonly [id: number, status: number, retryAfter: string | null, body: string | null, durationMs: number]
  | readonly [id: number, failed: -1, kind: SendFailed['kind'], message: string, durationMs: number];

/** The answer for a post that was never sent because its lane was cancelled. */
export const cancelledReply = (id: number): SendReply => [id, -1, 'cancelled', 'not sent: its lane was cancelled', 0];
