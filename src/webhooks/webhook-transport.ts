/**
 * The port webhooks are posted through (delivery/webhook-sender.ts, or in sending threads
 * delivery/threaded-webhook-sender.ts). A post answers what came back or rejects with an error
 * whose `kind` says why nothing came (`refused`, `timeout`, `connection`, `tls`, `dns`, or
 * `cancelled` for one held and never sent); the caller logs only that kind, never the receiver's text.
 */

/** One post's deadline (ms), bytes of the answer's body to return (0: none), and its endpoint's lane. */
export interface TransportOptions {
  readonly timeoutMs: number;
  readonly readBytes: number;
  /** At most `concurrency` of a lane's posts on the wire at once (a transport that holds posts). */
  readonly lane?: { readonly key: string; readonly concurrency: number } | undefined;
}

/** What came back; `durationMs`: its time on the wire, when the transport made it wait first. */
export interface TransportAnswer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string | undefined;
  readonly durationMs?: number | undefined;
}

/** What sending a webhook needs from the HTTP side. */
export interface WebhookTransport {
  /**
   * Posts of one lane (an endpoint) it takes beyond the lane's concurrency, holds, and starts
   * itself as soon as one of the lane's posts ends (absent: none; each post starts at once).
   */
  readonly queuedPerLane?: number | undefined;
  post(url: string, headers: Record<string, string>, body: string, options: TransportOptions): Promise<TransportAnswer>;
  /** The lane's posts it holds are not sent: they fail with kind `cancelled`. */
  cancel?(lane: string): void;
}
