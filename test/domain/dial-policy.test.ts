import { describe, expect, it } from 'vitest';
import { addressClass, dialPolicyFor } from '../../src/domain/dial-policy.js';

describe('address classes', () => {
  it.each([
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'], ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'], ['100.127.255.255', 'private'], ['198.18.0.1', 'private'], ['198.19.255.255', 'private'],
    ['fc00::1', 'private'], ['fd12:3456::1', 'private'], ['::ffff:10.1.2.3', 'private'],
    ['169.254.0.1', 'link-local'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'], ['FE80::1', 'link-local'],
    ['169.254.169.254', 'metadata'], ['fd00:ec2::254', 'metadata'], ['::ffff:169.254.169.254', 'metadata'], ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
    ['224.0.0.1', 'reserved'], ['239.255.255.250', 'reserved'], ['240.0.0.1', 'reserved'], ['255.255.255.255', 'reserved'], ['ff02::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['64:ff9b::7f00:1', 'loopback'], ['64:ff9b::a00:5', 'private'], ['64:ff9b::8.8.8.8', 'public'],
    ['8.8.8.8', 'public'], ['1.1.1.1', 'public'], ['172.15.255.255', 'public'], ['172.32.0.0', 'public'], ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'], ['198.17.255.255', 'public'], ['198.20.0.0', 'public'], ['223.255.255.255', 'public'],
    ['2606:4700::1111', 'public'], ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b:1::7f00:1', 'loopback'], ['64:ff9b:1::808:808', 'public'], ['::ffff:0:7f00:1', 'loopback'], ['::ffff:0:a00:1', 'private'],
    ['192.0.0.8', 'reserved'], ['192.0.2.1', 'reserved'], ['198.51.100.7', 'reserved'], ['203.0.113.7', 'reserved'], ['2001:db8::1', 'reserved'], ['100::1', 'reserved'],
  ])('%s is %s', (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });

  it('is undefined for a host name', () => {
    expect(addressClass('automaker.example')).toBeUndefined();
    expect(addressClass('localhost')).toBeUndefined();
  });
});

describe('which addresses an OEM\'s connections may dial, by its base URL host', () => {
  const permits = (host: string, address: string) => dialPolicyFor(host).permits(address);

  it('a host name: public addresses only, so a rebinding automaker cannot point inside', () => {
    for (const host of ['automaker.example', 'api.oem.com', 'adapter.internal']) {
      expect(permits(host, '8.8.8.8')).toBe(true);
      for (const inside of ['127.0.0.1', '::1', '10.0.0.5', '192.168.0.1', '169.254.169.254', 'fd00:ec2::254', 'fe80::1', '0.0.0.0', '::', '::ffff:127.0.0.1', '224.0.0.1']) {
        expect(permits(host, inside)).toBe(false);
      }
    }
  });

  it('localhost: loopback too, never the rest', () => {
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'oem.localhost']) {
      expect(permits(host, '127.0.0.1')).toBe(true);
      expect(permits(host, '::1')).toBe(true);
      expect(permits(host, '10.0.0.5')).toBe(false);
      expect(permits(host, '169.254.169.254')).toBe(false);
    }
  });

  it('a literal address: its own class, plus public', () => {
    expect(permits('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(permits('127.0.0.1', '10.0.0.5')).toBe(false);
    expect(permits('10.0.0.5', '10.0.0.5')).toBe(true);
    expect(permits('10.0.0.5', '192.168.0.1')).toBe(true);
    expect(permits('10.0.0.5', '127.0.0.1')).toBe(false);
    expect(permits('[::1]', '::1')).toBe(true);
    expect(permits('[fd12::1]', 'fd12::1')).toBe(true);
    expect(permits('169.254.1.1', '169.254.1.1')).toBe(true);
    expect(permits('8.8.8.8', '1.1.1.1')).toBe(true);
  });

  it('metadata addresses only when the base URL literally is one', () => {
    expect(permits('169.254.1.1', '169.254.169.254')).toBe(false);
    expect(permits('[fd12::1]', 'fd00:ec2::254')).toBe(false);
    expect(permits('169.254.169.254', '169.254.169.254')).toBe(true);
    expect(permits('[fd00:ec2::254]', 'fd00:ec2::254')).toBe(true);
  });

  it('refuses anything that is not an address', () => {
    expect(permits('automaker.example', 'automaker.example')).toBe(false);
    expect(permits('automaker.example', '')).toBe(false);
  });
});
