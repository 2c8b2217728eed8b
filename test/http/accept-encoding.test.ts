import { describe, expect, it } from 'vitest';
import { negotiateContentCoding } from '../../src/http/accept-encoding.js';

describe('Accept-Encoding negotiation', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=0.8', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.5', 'br'],
    ['*', 'br'],
    ['*;q=0.1', 'br'],
    ['br;q=0, *', 'gzip'],
    // The coding the header names is refused even though `*` would accept it.
    ['gzip;q=0, *', 'br'],
    ['gzip;q=0.2, *;q=0.5', 'br'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*;q=0', 'identity'],
    ['identity', 'identity'],
    ['identity, gzip;q=0.5', 'identity'],
    ['identity;q=0.4, gzip;q=0.5', 'gzip'],
    ['identity;q=0', 'identity'],
    ['deflate, zstd', 'identity'],
    ['gzip; q=0.001', 'gzip'],
    ['gzip;q=1.000', 'gzip'],
  ])('when Accept-Encoding is %j, then the answer is %s', (header, coding) => {
    expect(negotiateContentCoding(header)).toBe(coding);
  });

  it.each(['gzip;q=2', 'gzip; q = 0', 'gzip;q =0.5', 'gzip;q=0.0001', 'gzip;q=-1', 'gzip;q=high', 'br;q=1.5'])('when an entry\'s q is malformed (%j), then the entry is ignored', (header) => {
    expect(negotiateContentCoding(header)).toBe('identity');
    expect(negotiateContentCoding(`${header}, gzip;q=0.3`)).toBe('gzip');
  });

  it('when a coding is named twice, then its first mention counts', () => {
    expect(negotiateContentCoding('br;q=0, br, gzip;q=0.5')).toBe('gzip');
  });
});
