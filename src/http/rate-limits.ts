/**
 * The request limits (configuration: docs/configuration.md): POST /token per client address,
 * before the body is read, and failed POST /token attempts per client id (a correct secret is
 * never refused for others' failures); POST /vehicle-command per application, right after
 * authentication. Over a limit: 429 with `Retry-After`.
 *
 * With a shared store (`--redis-url`) every process counts against one total. Without one, or
 * while it cannot answer, counters live in this process's memory, so with N instances a limit
 * applies N times over: never no limit at all. Falling back is logged once per outage.
 */
import { RateLimiter, retryAfterSeconds, type Rate } from '../domain/rate-limit.js';
import { errors, ServiceError } from '../domain/errors.js';

export interface RateLimitSettings {
  readonly tokenPerClient?: Rate | null | undefined;
  readonly tokenPerAddress?: Rate | null | undefined;
  readonly commandPerApplication?: Rate | null | undefined;
  readonly sharePerAddress?: Rate | null | undefined;
}

/** Counters every process shares; `take` answers 0 or the ms to wait, like RateLimiter's. */
export interface SharedRateStore {
  take(name: string, key: string, rate: Rate, now: number): Promise<number>;
}

/** Told when the shared store fails (`down`) and when it answers again (`up`). */
export type SharedStoreWatcher = (change: 'down' | 'up', error?: unknown) => void;

/** Client ids are short; a longer one is cut so a huge field cannot make a huge key. */
const MAX_KEY_LENGTH = 256;

class SharedStoreHealth {
  #down = false;
  constructor(private readonly watcher: SharedStoreWatcher | undefined) {}
  failed(error: unknown): void {
    if (this.#down) return;
    this.#down = true;
    this.watcher?.('down', error);
  }
  answered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.watcher?.('up');
  }
}

export class RequestLimit {
  readonly #local: RateLimiter | undefined;

  constructor(
    private readonly name: string,
    private readonly rate: Rate | null | undefined,
    private readonly shared?: SharedRateStore,
    private readonly health?: SharedStoreHealth,
  ) {
    this.#local = rate ? new RateLimiter(rate) : undefined;
  }

  /** Counts a request of `key`; throws 429 when `key` is over its limit. */
  async take(key: string, now: number): Promise<void> {
    if (!this.rate || !this.#local) return;
    const bounded = key.length > MAX_KEY_LENGTH ? key.slice(0, MAX_KEY_LENGTH) : key;
    let wait: number;
    if (this.shared) {
      try {
        wait = await this.shared.take(this.name, bounded, this.rate, now);
        this.health?.answered();
      } catch (error) {
        this.health?.failed(error);
        wait = this.#local.take(bounded, now);
      }
    } else {
      wait = this.#local.take(bounded, now);
    }
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
  /** Share links' pages and positions, per client address: anyone holding a link may poll it. */
  readonly sharePerAddress: RequestLimit;
}

export function requestLimits(settings: RateLimitSettings = {}, shared?: SharedRateStore, watcher?: SharedStoreWatcher): RequestLimits {
  const health = shared ? new SharedStoreHealth(watcher) : undefined;
  return {
    tokenPerClient: new RequestLimit('token-client', settings.tokenPerClient, shared, health),
    tokenPerAddress: new RequestLimit('token-address', settings.tokenPerAddress, shared, health),
    commandPerApplication: new RequestLimit('command-app', settings.commandPerApplication, shared, health),
    sharePerAddress: new RequestLimit('share-address', settings.sharePerAddress, shared, health),
  };
}
