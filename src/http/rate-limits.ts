/**
 * The request limits of this process (configuration: docs/configuration.md): POST /token per
 * client address, before the body is read, and failed POST /token attempts per client id (a
 * correct secret is never refused for others' failures); POST /vehicle-command per
 * application, right after authentication. Over a limit: 429 with `Retry-After`.
 *
 * Counters live in this process's memory: with N instances behind a balancer each limit applies
 * N times over. That is the trade for needing no shared store; SECURITY.md says so.
 */
import { RateLimiter, retryAfterSeconds, type Rate } from '../domain/rate-limit.js';
import { errors, ServiceError } from '../domain/errors.js';

export interface RateLimitSettings {
  readonly tokenPerClient?: Rate | null | undefined;
  readonly tokenPerAddress?: Rate | null | undefined;
  readonly commandPerApplication?: Rate | null | undefined;
}

/** Client ids are short; a longer one is cut so a huge field cannot make a huge key. */
const MAX_KEY_LENGTH = 256;

export class RequestLimit {
  readonly #limiter: RateLimiter | undefined;

  constructor(rate: Rate | null | undefined) {
    this.#limiter = rate ? new RateLimiter(rate) : undefined;
  }

  /** Counts a request of `key`; throws 429 when `key` is over its limit. */
  take(key: string, now: number): void {
    if (!this.#limiter) return;
    const wait = this.#limiter.take(key.length > MAX_KEY_LENGTH ? key.slice(0, MAX_KEY_LENGTH) : key, now);
    if (wait > 0) {
      const seconds = retryAfterSeconds(wait);
      throw new ServiceError(errors.rateLimited, { seconds: String(seconds) }, seconds);
    }
  }
}

export interface RequestLimits {
  readonly tokenPerClient: RequestLimit;
  readonly tokenPerAddress: RequestLimit;
  readonly commandPerApplication: RequestLimit;
}

export function requestLimits(settings: RateLimitSettings = {}): RequestLimits {
  return {
    tokenPerClient: new RequestLimit(settings.tokenPerClient),
    tokenPerAddress: new RequestLimit(settings.tokenPerAddress),
    commandPerApplication: new RequestLimit(settings.commandPerApplication),
  };
}
