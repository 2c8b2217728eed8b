import { describe, expect, it } from 'vitest';
import { batchOutcomes, leaseKey, type DeliveryOutcome } from '../../src/webhooks/dispatch/outcome-batch.js';

const T0 = Date.UTC(2025, 0, 6, 12, 0, 0);
const attempt = (endpointId: string, n: number) => ({
  id: `a${n}`, endpoint_id: endpointId, event_id: `e${n}`, event_type: 'vehicle.online', event_position: n, trigger: 'auto', attempted_at: T0 + n,
  duration_ms: 5, status_code: 200, error: null,
});
const outcome = (endpointId: string, at: number, rest: Partial<DeliveryOutcome>): DeliveryOutcome => ({ endpointId, at, attempt: undefined, health: undefined, ...rest });

describe('a batch of webhook outcomes', () => {
  it('when retries succeed with different statuses, then each status is one group and the rest are settled one by one', () => {
    const settle = (id: string, status: 'succeeded' | 'pending', code: number) => ({ id, status, attempts: 2, next_attempt_at: T0, last_status: code, last_error: null });
    const batch = batchOutcomes([
      outcome('x', T0, { settlement: settle('d1', 'succeeded', 200), health: 'success' }),
      outcome('x', T0, { settlement: settle('d2', 'succeeded', 204), health: 'success' }),
      outcome('y', T0, { settlement: settle('d3', 'succeeded', 200), health: 'success' }),
      outcome('y', T0, { settlement: settle('d4', 'pending', 500), health: 'failure' }),
    ], new Set());
    expect([...batch.succeeded]).toEqual([[200, ['d1', 'd3']], [204, ['d2']]]);
    expect(batch.others.map((s) => s.id)).toEqual(['d4']);
  });

  it('when attempts, retry rows and advances come in, then each is kept, and an endpoint keeps the furthest position of its latest lease', () => {
    const retry = { id: 'r1', endpoint_id: 'x', event_id: 'e2', status: 'pending', attempts: 1, next_attempt_at: T0, lease_owner: null, lease_until: null, last_status: 500, last_error: 'HTTP 500', created_at: T0, updated_at: T0 };
    const batch = batchOutcomes([
      outcome('x', T0, { attempt: attempt('x', 1), health: 'success', stream: 'o:1', advance: { token: 'o:1', position: 7 } }),
      outcome('x', T0, { attempt: attempt('x', 2), health: 'failure', retry, stream: 'o:1', advance: { token: 'o:1', position: 5 } }),
      outcome('y', T0, { stream: 'o:1', advance: { token: 'o:1', position: 3 } }),
      outcome('y', T0, { stream: 'o:2', advance: { token: 'o:2', position: 2 } }),
    ], new Set());
    expect(batch.attempts.map((a) => a.id)).toEqual(['a1', 'a2']);
    expect(batch.retries).toEqual([retry]);
    expect(batch.advances).toEqual(new Map([['x', { token: 'o:1', position: 7 }], ['y', { token: 'o:2', position: 2 }]]));
  });

  it('when a lease is lost, then its advances are left out, and its attempts still count', () => {
    const batch = batchOutcomes([
      outcome('x', T0, { attempt: attempt('x', 1), health: 'success', stream: 'o:1', advance: { token: 'o:1', position: 7 } }),
    ], new Set([leaseKey('x', 'o:1')]));
    expect(batch.advances.size).toBe(0);
    expect(batch.attempts).toHaveLength(1);
    expect(batch.runs.get('x')).toEqual({ anySuccess: true, failedFrom: undefined, gone: false });
  });

  it('when failures and successes alternate, then the run keeps the first failure after the last success, and a 410 anywhere', () => {
    const batch = batchOutcomes([
      outcome('x', T0 + 1, { health: 'failure' }),
      outcome('x', T0 + 2, { health: 'success' }),
      outcome('x', T0 + 3, { health: 'failure' }),
      outcome('x', T0 + 4, { health: 'failure' }),
      outcome('y', T0 + 5, { health: 'gone' }),
      outcome('y', T0 + 6, { health: 'success' }),
      outcome('z', T0 + 7, { settlement: { id: 'd', status: 'dropped', attempts: 0, next_attempt_at: T0, last_status: null, last_error: 'event no longer available' } }),
    ], new Set());
    expect(batch.runs.get('x')).toEqual({ anySuccess: true, failedFrom: T0 + 3, gone: false });
    expect(batch.runs.get('y')).toEqual({ anySuccess: true, failedFrom: undefined, gone: true });
    expect(batch.runs.has('z')).toBe(false); // no attempt: nothing said of the endpoint
  });

  it('when endpoints have runs or advances, then they are listed once each, in id order', () => {
    const batch = batchOutcomes([
      outcome('c', T0, { health: 'failure' }),
      outcome('a', T0, { stream: 'o:1', advance: { token: 'o:1', position: 1 } }),
      outcome('b', T0, { health: 'success', stream: 'o:1', advance: { token: 'o:1', position: 1 } }),
      outcome('c', T0, { health: 'success' }),
      outcome('d', T0, { settlement: { id: 'd', status: 'failed', attempts: 1, next_attempt_at: T0, last_status: null, last_error: 'endpoint not enabled' } }),
    ], new Set());
    expect(batch.endpoints).toEqual(['a', 'b', 'c']);
  });
});
