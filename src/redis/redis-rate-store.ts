/**
 * Rate limits shared by every process through Redis (`--redis-url`): the same GCRA as the
 * in-process limiter (domain/rate-limit.ts), one key per limited thing holding its "theoretical
 * arrival time", read and advanced by one Lua script so concurrent processes cannot both take the
 * last slot. The caller's clock is used (the processes' clocks are assumed NTP-close), which keeps
 * tests on a test clock. A key expires when its allowance is whole again.
 */
import { Redis } from 'ioredis';
import type { Rate } from '../domain/rate-limit.js';
import type { SharedRateStore } from '../http/rate-limits.js';

const GCRA = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if tat < now then tat = now end
local allowed_from = tat - tolerance
if now < allowed_from then return math.ceil(allowed_from - now) end
local next_tat = tat + interval
redis.call('SET', KEYS[1], tostring(next_tat), 'PX', math.max(1, math.ceil(next_tat - now)))
return 0
`;

type WithGcra = Redis & { gcra(key: string, now: number, interval: number, tolerance: number): Promise<number> };

export class RedisRateStore implements SharedRateStore {
  readonly #redis: WithGcra;
  readonly #prefix: string;

  /** `prefix` namespaces the keys (tests give each run its own). */
  constructor(url: string, prefix = 'telematics:rate:') {
    // No offline queue and no retries per call: while Redis is away a call fails at once and the
    // caller counts in-process instead of waiting; the connection itself keeps reconnecting.
    this.#redis = new Redis(url, {
      enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 2000, commandTimeout: 250, lazyConnect: false,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    }) as WithGcra;
    // Errors are reported by the limiter that falls back; ioredis would otherwise print them.
    this.#redis.on('error', () => {});
    this.#redis.defineCommand('gcra', { numberOfKeys: 1, lua: GCRA });
    this.#prefix = prefix;
  }

  /** Resolves once connected, or false after `timeoutMs` (the limiter then counts in-process until it is). */
  async ready(timeoutMs = 2000): Promise<boolean> {
    if (this.#redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#redis.off('ready', onReady); resolve(false); }, timeoutMs);
      const onReady = () => { clearTimeout(timer); resolve(true); };
      this.#redis.once('ready', onReady);
    });
  }

  async take(name: string, key: string, rate: Rate, now: number): Promise<number> {
    const interval = rate.windowMs / rate.limit;
    return Number(await this.#redis.gcra(`${this.#prefix}${name}:${key}`, now, interval, rate.windowMs - interval));
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}
