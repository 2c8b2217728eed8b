/**
 * The error catalogue lives in the contract package (codes, statuses and texts are what clients
 * match on); this module re-exports it so the service keeps one import path, and adds the class
 * the service throws. `ServiceError` stays here: clients never throw it, and `retryAfterSeconds`
 * is how this service answers, not part of what a client must agree on.
 */
import { errorText, type ErrorEntry } from '@telematics/contract';

export { errors, errorText, type ErrorEntry, type ErrorName } from '@telematics/contract';

/** A catalogue error. Domain and store code throw these; the HTTP error handler maps them. */
export class ServiceError extends Error {
  readonly entry: ErrorEntry;
  readonly detail: string;
  /** Sent as `Retry-After` (seconds) with 429 and 503 answers. */
  readonly retryAfterSeconds: number | undefined;

  constructor(entry: ErrorEntry, params: Readonly<Record<string, string>> = {}, retryAfterSeconds?: number) {
    const detail = errorText(entry, params);
    super(detail);
    this.name = 'ServiceError';
    this.entry = entry;
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  get status(): number {
    return this.entry.status;
  }
}
