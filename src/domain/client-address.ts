/**
 * The key a client is counted under by the per-address limits. An address as a proxy reports it
 * may carry a port (Azure Application Gateway writes `ip:port` into X-Forwarded-For), which would
 * make every connection a new client; and one IPv6 host usually holds a whole /64, so counting
 * single IPv6 addresses would give it 2^64 allowances. Pure: no I/O.
 */
import { isIP } from 'node:net';

/** `1.2.3.4:5678` → `1.2.3.4`, `[2001:db8::1]:443` → `2001:db8::1`; anything else unchanged. */
export function withoutPort(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
  return v4 ? v4[1]! : address;
}

/** The eight 16-bit groups of an IPv6 address (text already checked by isIP), a trailing dotted IPv4 included. */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The key for counting: an IPv4 address as itself (IPv4-mapped IPv6 too), an IPv6 address as its
 * /64 network, anything that is not an address (a proxy's odd entry) as written, ports removed.
 */
export function addressKey(address: string): string {
  const plain = withoutPort(address.trim());
  const family = isIP(plain.replace(/%.*$/, ''));
  if (family === 4) return plain;
  if (family !== 6) return plain;
  const groups = ipv6Groups(plain);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
