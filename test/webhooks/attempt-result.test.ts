import { describe, expect, it } from 'vitest';
import { attemptResultOf } from '../../src/webhooks/webhook-observer.js';

describe('attempt results as metrics count them', () => {
  it('when the receiver answered, then 2xx is a success, 410 gone, and every other status an HTTP error', () => {
    for (const status of [200, 204, 299]) expect(attemptResultOf(status, undefined)).toBe('success');
    expect(attemptResultOf(410, undefined)).toBe('gone');
    for (const status of [199, 301, 404, 429, 500, 503]) expect(attemptResultOf(status, undefined)).toBe('http_error');
  });

  it('when no answer came, then the known kinds are kept and anything else is a connection failure', () => {
    for (const kind of ['timeout', 'tls', 'dns', 'refused'] as const) expect(attemptResultOf(undefined, kind)).toBe(kind);
    for (const other of ['connection', 'cancelled', 'weird', undefined]) expect(attemptResultOf(undefined, other)).toBe('connection');
  });
});
