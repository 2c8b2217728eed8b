/**
 * Where webhooks may go (SSRF). An application names any URL it likes, and its DNS can answer
 * anything, so both the URL (at registration) and the address a connection is about to dial (at
 * every delivery) are judged:
 *
 * - public addresses over HTTPS;
 * - addresses inside the operator's `--webhook-allow-cidr` ranges (a LAN), plain HTTP included;
 * - never loopback, private, link-local, CGNAT, unspecified, reserved or documentation addresses
 *   outside those ranges, and never cloud metadata addresses, whatever the ranges say.
 *
 * WHATWG URL parsing turns decimal, hex and octal IPv4 spellings (`http://2130706433/`,
 * `0x7f.1`) into the dotted address, and IPv4-mapped IPv6 is judged as its IPv4, so no spelling
 * of an address escapes its class. Pure: no I/O.
 */
import { BlockList, isIP } from 'node:net';
import { addressClass, type DialPolicy } from './dial-policy.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface WebhookNetworks {
  /** CIDR ranges the operator opened (`10.20.0.0/16`, `fd00:1::/64`). */
  readonly allowCidrs: readonly string[];
}

/** Parses `--webhook-allow-cidr` values; throws with the bad value named. */
export function allowListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [network, prefixText, extra] = cidr.trim().split('/');
    const family = isIP(network ?? '');
    const prefix = Number(prefixText);
    if (extra !== undefined || family === 0 || !/^\d{1,3}$/.test(prefixText ?? '') || prefix > (family === 4 ? 32 : 128)) {
      throw new Error(`not a CIDR range: ${cidr} (write it as 10.20.0.0/16 or fd00:1::/64)`);
    }
    list.addSubnet(network!, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

const inList = (list: BlockList, address: string): boolean => {
  const family = isIP(address);
  if (family === 0) return false;
  if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
  // An IPv4-mapped IPv6 address is its IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped !== null && list.check(mapped[1]!, 'ipv4');
};

/**
 * Never dialled, whatever the operator allows: link-local ranges (where cloud metadata and
 * credential services live: 169.254.169.254, ECS's 169.254.170.2) and the metadata services
 * that sit elsewhere (Alibaba's 100.100.100.200 inside CGNAT space, AWS's IPv6 fd00:ec2::/64
 * addresses), so opening a LAN or CGNAT range never opens them.
 */
const NEVER = allowListOf(['100.100.100.200/32', 'fd00:ec2::/64']);

/** The addresses a delivery over `protocol` may dial. */
export function webhookDialPolicy(allowList: BlockList, protocol: 'https:' | 'http:'): DialPolicy {
  return Object.freeze({
    allowed: new Set(protocol === 'https:' ? ['public' as const] : []),
    permits(address: string) {
      const plain = address.replace(/%.*$/, '');
      const kind = addressClass(plain);
      if (kind === undefined || kind === 'metadata' || kind === 'link-local' || inList(NEVER, plain)) return false;
      if (inList(allowList, plain)) return true;
      return protocol === 'https:' && kind === 'public';
    },
  });
}

export type UrlCheck = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: 'invalid' | 'refused'; readonly detail: string };

/**
 * Whether a URL may be registered: absolute, HTTPS (or HTTP to an allowed range), no user name
 * or password, at most 2048 characters, and a literal address only of a class it may dial.
 * A host name is judged again at every connection, by the address it then resolves to.
 */
export function checkWebhookUrl(text: string, allowList: BlockList, hasAllowList: boolean): UrlCheck {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: 'invalid', detail: 'too long' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'invalid', detail: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'invalid', detail: 'not https' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'invalid', detail: 'user name or password in the URL' };
  if (url.hash !== '') return { ok: false, reason: 'invalid', detail: 'a fragment' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host) !== 0;
  if (url.protocol === 'http:' && !(literal ? inList(allowList, host) : hasAllowList)) {
    return { ok: false, reason: 'invalid', detail: 'plain http is only for addresses of --webhook-allow-cidr' };
  }
  if (literal && !webhookDialPolicy(allowList, url.protocol).permits(host)) {
    const kind = addressClass(host);
    return { ok: false, reason: 'refused', detail: `${kind} address ${host}${openable(host, kind) ? OPEN_WITH_FLAG : ''}` };
  }
  // A name that says loopback is refused early, unless the operator opened loopback (the demo does).
  if (!literal && /^(?:.+\.)?localhost\.?$/i.test(host) && !inList(allowList, '127.0.0.1')) {
    return { ok: false, reason: 'refused', detail: `loopback name ${host}${OPEN_WITH_FLAG}` };
  }
  return { ok: true, url };
}

/** Said beside a refusal the operator could lift, so the one who reads the 400 knows where. */
const OPEN_WITH_FLAG = ' (an operator opens its network with --webhook-allow-cidr or TELEMATICS_WEBHOOK_ALLOW_CIDRS)';

const openable = (address: string, kind: ReturnType<typeof addressClass>): boolean =>
  kind !== undefined && kind !== 'metadata' && kind !== 'link-local' && !inList(NEVER, address);
