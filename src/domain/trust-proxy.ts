/**
 * Which X-Forwarded-For hops to believe. `X-Forwarded-For` is a list the client starts and each
 * proxy appends to, so only the hops written by proxies we know are true: the client address is
 * the hop just before them. Trusting "the leftmost hop" would let any client choose its own
 * address (and so its own rate-limit key). Fastify (proxy-addr) takes the same two forms.
 */
import { BlockList, isIP } from 'node:net';
import { plainAddress } from './ip-text.js';

/** `false`: no proxy; a number: that many proxies in front; a list: the proxies' addresses and ranges. */
export type TrustProxy = false | number | readonly string[];

export const MAX_PROXY_HOPS = 10;

const OFF = new Set(['false', 'off', 'no', '0']);
const ON = new Set(['true', 'on', 'yes']);

/** An address or a CIDR range (`10.0.0.0/8`, `fd00::/8`) as [address, family, prefix]. */
function parseRange(text: string): [string, 4 | 6, number] | undefined {
  const [address, prefixText, extra] = text.split('/');
  const family = isIP(address ?? '');
  if (extra !== undefined || (family !== 4 && family !== 6)) return undefined;
  const max = family === 4 ? 32 : 128;
  if (prefixText === undefined) return [address!, family, max];
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return [address!, family, Number(prefixText)];
}

/**
 * Parses the `--trust-proxy` setting. A bare flag or `true` means one proxy: the common case (one
 * nginx or load balancer), and the safe reading of the old on/off setting.
 */
export function parseTrustProxy(raw: string | number | boolean): TrustProxy | undefined {
  if (raw === true) return 1;
  if (raw === false) return false;
  const text = String(raw).trim().toLowerCase();
  if (OFF.has(text)) return false;
  if (ON.has(text)) return 1;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops >= 1 && hops <= MAX_PROXY_HOPS ? hops : undefined;
  }
  const ranges = text.split(',').map((part) => part.trim());
  if (ranges.some((range) => parseRange(range) === undefined)) return undefined;
  return ranges;
}

/**
 * Whether the hop `hop` away from us (0: the connection's peer; 1: the last X-Forwarded-For
 * entry; …) is one of our proxies, as Fastify's `trustProxy` function takes it. The client
 * address is the first hop that is not. A hop count cannot tell a proxy from a client that
 * reached the service directly, so it is for a service only the proxies can reach; ranges are not.
 */
export function proxyTrust(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (trust === false) return () => false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  const list = new BlockList();
  for (const range of trust) {
    const [address, family, prefix] = parseRange(range)!;
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return (address) => {
    // A proxy may write its hops as `ip:port`; dual-stack sockets report IPv4 peers as `::ffff:a.b.c.d`.
    const plain = plainAddress(address);
    const family = isIP(plain);
    return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  };
}
