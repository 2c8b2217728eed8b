/**
 * The key a client is counted under by the per-address limits. An address as a proxy reports it
 * may carry a port (Azure Application Gateway writes `ip:port` into X-Forwarded-For), which would
 * make every connection a new client; and one IPv6 host usually holds a whole /64, so counting
 * single IPv6 addresses would give it 2^64 allowances. Pure: no I/O.
 */
import { isIP } from 'node:net';
import { ipv6Groups, plainAddress } from './ip-text.js';

/**
 * The key for counting: an IPv4 address as itself (IPv4-mapped IPv6 too), an IPv6 address as its
 * /64 network, anything that is not an address (a proxy's odd entry) as written, ports removed.
 */
export function addressKey(address: string): string {
  const plain = plainAddress(address);
  if (isIP(plain.replace(/%.*$/, '')) !== 6) return plain;
  return `${ipv6Groups(plain).slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
