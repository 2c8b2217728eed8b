/**
 * The request histogram keeps one series per (method, route, status), found by nested lookups
 * rather than a key text: each series counts only its own requests, and unmatched requests are
 * their own route.
 */
import { countOf } from '../support/metrics-text.js';
import { describe, expect, it } from 'vitest';
import { ServiceMetrics } from '../../src/http/metrics.js';

describe('request histogram', () => {
  it('when requests differ by method, route or status, then each series counts only its own', async () => {
    const metrics = new ServiceMetrics();
    metrics.observe('GET', '/vehicle/:vin', 200, 2);
    metrics.observe('GET', '/vehicle/:vin', 200, 30);
    metrics.observe('GET', '/vehicle/:vin', 404, 1);
    metrics.observe('POST', '/vehicle/:vin', 200, 1);
    metrics.observe('GET', '/vehicle', 200, 1);
    metrics.observe('GET', undefined, 404, 1);
    const text = await metrics.registry.metrics();
    expect(countOf(text, 'GET', '/vehicle/:vin', 200)).toBe(2);
    expect(countOf(text, 'GET', '/vehicle/:vin', 404)).toBe(1);
    expect(countOf(text, 'POST', '/vehicle/:vin', 200)).toBe(1);
    expect(countOf(text, 'GET', '/vehicle', 200)).toBe(1);
    expect(countOf(text, 'GET', 'unmatched', 404)).toBe(1);
    expect(text.match(/^http_request_duration_seconds_count\{/gm)).toHaveLength(5);
    // 2 ms and 30 ms: the 5 ms bucket holds one, the 50 ms bucket both; the sum is in seconds.
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/vehicle/:vin",status="200"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.05",method="GET",route="/vehicle/:vin",status="200"} 2');
    expect(text).toContain('http_request_duration_seconds_sum{method="GET",route="/vehicle/:vin",status="200"} 0.032');
  });
});
