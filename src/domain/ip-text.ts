/**
 * IP addresses as text, the way proxies, sockets and URLs write them: ports to drop, IPv6 to read
 * group by group, IPv4 addresses carried inside IPv6 ones. Pure: no I/O.
 */
import { isIP } from 'node:net';

/** `1.2.3.4:5678` → `1.2.3.4`, `[2001:db8::1]:443` → `2001:db8::1`; anything else unchanged. */
export function withoutPort(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
  return v4 ? v4[1]! : address;
}

/** The eight 16-bit groups of an IPv6 address (text already checked by isIP), a zone dropped and a trailing dotted IPv4 included. */
export function ipv6Groups(address: string): number[] {
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

/** The last 32 bits of IPv6 groups as dotted IPv4 (where NAT64, SIIT and mapped addresses carry it). */
export const lastIpv4Of = (groups: readonly number[]): string => `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;

/** Whether IPv6 groups are an IPv4-mapped address (`::ffff:a.b.c.d`). */
export const isIpv4Mapped = (groups: readonly number[]): boolean => groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;

/** An address as a socket or a proxy wrote it, without its port, an IPv4-mapped one as plain IPv4. */
export function plainAddress(address: string): string {
  const plain = withoutPort(address.trim());
  if (isIP(plain.replace(/%.*$/, '')) !== 6) return plain;
  const groups = ipv6Groups(plain);
  return isIpv4Mapped(groups) ? lastIpv4Of(groups) : plain;
}
