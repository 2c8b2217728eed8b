import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/domain/client-address.js';
import { withoutPort } from '../../src/domain/ip-text.js';

describe('the key a client address is counted under', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['203.0.113.7:5678', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['[::ffff:203.0.113.7]:443', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff::1', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::9]:8080', '2001:db8:1:2::/64'],
    ['2001:DB8:0:0:1::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s is counted as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('when a hop has no port, then nothing is cut', () => {
    expect(withoutPort('2001:db8::1')).toBe('2001:db8::1');
    expect(withoutPort('10.0.0.1')).toBe('10.0.0.1');
  });
});
