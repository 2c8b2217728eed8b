/**
 * Rate limits shared through Redis (the machine's, 127.0.0.1:6379, each test run under its own key
 * prefix): two API instances behind one limit allow the configured total, not twice it; the Lua
 * GCRA answers as the in-process one does; and with Redis unreachable each instance still limits,
 * in its own memory, and says so once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/domain/rate-limit.js';
import { RedisRateStore } from '../../src/redis/redis-rate-store.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MINUTE = 60_000;

describe('shared rate limits (Redis)', () => {
  const stores: RedisRateStore[] = [];
  const services: TestService[] = [];
  const storeFor = async (url = REDIS, prefix = `test:${randomUUID()}:`) => {
    const store = new RedisRateStore(url, prefix);
    stores.push(store);
    await store.ready(url === REDIS ? 5000 : 300);
    return store;
  };
  afterAll(async () => {
    for (const svc of services) await svc.close();
    for (const store of stores) await store.close();
  });

  const token = (svc: TestService) => svc.request('POST', '/token', {
    form: { client_id: 'alpha-dispatch', client_secret: SECRETS.alphaDispatch.client }, headers: { accept: 'application/json' },
  });

  it('when two instances share one limit, then together they allow the configured total, not twice it', async () => {
    const prefix = `test:${randomUUID()}:`;
    for (let i = 0; i < 2; i += 1) {
      services.push(await startTestService('sqlite', undefined, {
        rateLimits: { tokenPerAddress: { limit: 4, windowMs: MINUTE } }, http: { sharedRateStore: await storeFor(REDIS, prefix) },
      }));
    }
    const [a, b] = services.slice(-2) as [TestService, TestService];
    const statuses = [];
    for (let i = 0; i < 8; i += 1) statuses.push((await token(i % 2 === 0 ? a : b)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    const refused = await token(a);
    expect(refused.body.detail).toMatch(/^Too many requests\. Retry after \d+ s\.$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('when the same requests are counted in Redis and in memory, then both give the same answers', async () => {
    const store = await storeFor();
    const rate = { limit: 5, windowMs: 10_000 };
    const local = new RateLimiter(rate);
    let now = Date.UTC(2026, 10, 25, 12);
    for (let i = 0; i < 200; i += 1) {
      now += [0, 1, 250, 999, 2000, 4000][i % 6]!;
      const key = `k${i % 3}`;
      expect(await store.take('same', key, rate, now)).toBe(local.take(key, now));
    }
  });

  it('when Redis cannot be reached, then each instance limits in its own memory, answers no 500, and logs the fallback once', async () => {
    const svc = await startTestService('sqlite', undefined, {
      rateLimits: { tokenPerAddress: { limit: 2, windowMs: MINUTE } }, http: { sharedRateStore: await storeFor('redis://127.0.0.1:1') },
    });
    services.push(svc);
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await token(svc)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(svc.logs.filter((l) => l.includes('shared rate limits unreachable'))).toHaveLength(1);
  });
});
