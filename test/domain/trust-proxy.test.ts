import { describe, expect, it } from 'vitest';
import { parseTrustProxy, proxyTrust } from '../../src/domain/trust-proxy.js';

describe('which X-Forwarded-For hops are believed', () => {
  it('when nothing is trusted, then no hop is a proxy', () => {
    expect(proxyTrust(false)('127.0.0.1', 0)).toBe(false);
  });

  it('when a hop count is given, then exactly that many hops from us are proxies', () => {
    const trust = proxyTrust(2);
    expect([0, 1, 2, 3].map((hop) => trust('203.0.113.7', hop))).toEqual([true, true, false, false]);
  });

  it('when ranges are given, then only addresses inside them are proxies, IPv4-mapped peers included', () => {
    const trust = proxyTrust(parseTrustProxy('10.0.0.0/8,127.0.0.1,fd00::/8') as readonly string[]);
    expect(trust('10.200.3.4', 0)).toBe(true);
    expect(trust('::ffff:10.1.1.1', 0)).toBe(true);
    expect(trust('127.0.0.1', 5)).toBe(true);
    expect(trust('127.0.0.2', 0)).toBe(false);
    expect(trust('fd12::1', 1)).toBe(true);
    expect(trust('203.0.113.7', 1)).toBe(false);
    expect(trust('not an address', 0)).toBe(false);
  });

  it.each([
    [true, 1], ['on', 1], ['3', 3], ['off', false], [false, false], ['0', false],
    ['11', undefined], ['-1', undefined], ['all', undefined], ['10.0.0.0/33', undefined], ['10.0.0.1,', undefined], ['::1/129', undefined],
  ])('parses %s as %s', (raw, parsed) => {
    expect(parseTrustProxy(raw)).toEqual(parsed);
  });
});
