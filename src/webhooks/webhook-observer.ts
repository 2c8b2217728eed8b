/** The port the dispatcher tells about each attempt (delivery/webhook-metrics.ts implements it). */

/** An attempt's result as metrics count it. */
export type AttemptResult = 'success' | 'http_error' | 'gone' | 'timeout' | 'connection' | 'tls' | 'dns' | 'refused';

/** Who is told about each attempt (the metrics adapter). */
export interface WebhookObserver {
  attempt(result: AttemptResult, seconds: number): void;
}

/** The result of an attempt that answered `status`, or failed with `error` when none came. */
export function attemptResultOf(status: number | undefined, error: string | undefined): AttemptResult {
  if (status === undefined) return (['timeout', 'tls', 'dns', 'refused'] as const).find((kind) => kind === error) ?? 'connection';
  if (status >= 200 && status <= 299) return 'success';
  return status === 410 ? 'gone' : 'http_error';
}
