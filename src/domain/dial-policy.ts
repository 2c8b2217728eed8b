/**
 * Which addresses the service may dial for an OEM (SSRF, DNS rebinding). An automaker controls
 * its own DNS, so checking the status URL's host name is not enough: the address a connection is
 * about to dial is judged, and inside addresses (loopback, private, link-local, cloud metadata,
 * unspecified, multicast and reserved) are refused unless the OEM's operator-configured base URL
 * is itself on that kind of address:
 *
 * - a literal address (`http://10.0.0.5:8080`, `http://127.0.0.1:8090`) allows its own class: the
 *   operator chose it, and a literal is never resolved, so the automaker cannot move it;
 * - `localhost` (or `*.localhost`) allows loopback: it is resolved from the hosts file, which the
 *   automaker does not control;
 * - any other host name allows public addresses only. An adapter on the private network must be
 *   configured by address, not by name: a name is resolved through DNS we cannot tell apart from
 *   the automaker's, and allowing private answers for names would let a rebinding automaker in.
 *
 * Metadata addresses (169.254.169.254, fd00:ec2::254) are their own class, so a link-local or
 * private base URL does not open them; only a base URL that literally is one does. Pure: no I/O.
 */
import { BlockList, isIP } from 'node:net';
import { ipv6Groups, lastIpv4Of } from './ip-text.js';

export type AddressClass = 'public' | 'unspecified' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

type Subnet = readonly [network: string, prefix: number];

/** First match wins, so the metadata addresses are taken out of link-local and private first. */
const CLASSES: readonly (readonly [AddressClass, readonly Subnet[]])[] = [
  ['metadata', [['169.254.169.254', 32], ['fd00:ec2::254', 128]]],
  ['unspecified', [['0.0.0.0', 8], ['::', 128]]],
  ['loopback', [['127.0.0.0', 8], ['::1', 128]]],
  // RFC 1918, shared address space (carrier-grade NAT), benchmarking; unique-local and the
  // deprecated site-local IPv6 ranges.
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['198.18.0.0', 15], ['fc00::', 7], ['fec0::', 10]]],
  ['link-local', [['169.254.0.0', 16], ['fe80::', 10]]],
  // Multicast, reserved and broadcast (224.0.0.0 and above), IPv6 multicast, the deprecated
  // IPv4-compatible IPv6 addresses (::a.b.c.d), IETF protocol assignments, the documentation
  // ranges (TEST-NET-1/2/3, 2001:db8::/32) and the IPv6 discard prefix: nothing an automaker runs on.
  ['reserved', [
    ['224.0.0.0', 3], ['ff00::', 8], ['::', 96], ['192.0.0.0', 24], ['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24],
    ['2001:db8::', 32], ['100::', 64],
  ]],
];

const LISTS: readonly (readonly [AddressClass, BlockList])[] = CLASSES.map(([name, subnets]) => {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return [name, list] as const;
});

/**
 * NAT64 (RFC 6052's well-known prefix and RFC 8215's local-use one) and SIIT: the IPv4 address in the last
 * 32 bits is where the packet really goes.
 */
const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');
NAT64.addSubnet('64:ff9b:1::', 48, 'ipv6');
// SIIT's IPv4-translated addresses (RFC 2765, ::ffff:0:a.b.c.d) carry the IPv4 the same way.
NAT64.addSubnet('::ffff:0:0:0', 96, 'ipv6');

/** The class of an IP address (IPv4-mapped IPv6 judged as its IPv4); undefined when it is not one. */
export function addressClass(address: string): AddressClass | undefined {
  const plain = address.replace(/%.*$/, ''); // an IPv6 zone names an interface, not an address
  const family = isIP(plain);
  if (family === 0) return undefined;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (family === 6 && NAT64.check(plain, 'ipv6')) return addressClass(lastIpv4Of(ipv6Groups(plain)));
  for (const [name, list] of LISTS) if (list.check(plain, type)) return name;
  return 'public';
}

export interface DialPolicy {
  /** The classes of address this OEM's connections may dial. */
  readonly allowed: ReadonlySet<AddressClass>;
  permits(address: string): boolean;
}

const LOCALHOST = /^(?:.+\.)?localhost\.?$/i;

/** A host (name or address) that is this machine: loopback addresses and `localhost` names. */
export const isLoopbackHost = (host: string): boolean => addressClass(host) === 'loopback' || LOCALHOST.test(host);

/** The policy for an OEM whose base URL has this host (`URL.hostname`: IPv6 in brackets). */
export function dialPolicyFor(baseHost: string): DialPolicy {
  const host = baseHost.startsWith('[') && baseHost.endsWith(']') ? baseHost.slice(1, -1) : baseHost;
  const own = addressClass(host) ?? (LOCALHOST.test(host) ? 'loopback' : 'public');
  const allowed: ReadonlySet<AddressClass> = new Set<AddressClass>(['public', own]);
  return Object.freeze({
    allowed,
    permits(address: string) {
      const kind = addressClass(address);
      return kind !== undefined && allowed.has(kind);
    },
  });
}
