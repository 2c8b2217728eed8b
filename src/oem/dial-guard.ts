/**
 * Applies an OEM's DialPolicy to the address a connection really dials. Host names are judged in
 * the resolver the connection uses (so a name that rebinds between our check and the connect is
 * impossible: what is checked is what is dialled); IP literals never reach a resolver in Node and
 * are judged by `refusedLiteral`. Either refusal ends like an unreachable automaker.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { addressClass, type DialPolicy } from '../domain/dial-policy.js';

const refusal = (host: string, address: string) =>
  `refused to dial ${address} (${addressClass(address) ?? 'not an address'}) for ${host}: not allowed by this OEM's base URL`;

/** A resolver that fails when any address of the answer is one the policy refuses. */
export function guardedLookup(policy: DialPolicy, lookup: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      // `all` (Node's happy-eyeballs connect asks for it) answers a list; otherwise one address.
      const addresses: readonly LookupAddress[] = Array.isArray(address) ? address : [{ address, family: family ?? 0 }];
      // One inside address refuses the whole answer: a public automaker has no reason to publish one.
      const refused = addresses.find((a) => !policy.permits(a.address));
      if (refused) return callback(Object.assign(new Error(refusal(hostname, refused.address)), { code: 'EDIALREFUSED' }), address, family);
      callback(null, address, family);
    });
  };
}

/** Why a URL's host, when it is an IP literal, may not be dialled; undefined when it may (or is a name). */
export function refusedLiteral(policy: DialPolicy, hostname: string): string | undefined {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) === 0 || policy.permits(host)) return undefined;
  return refusal(hostname, host);
}
