/**
 * Where a simulated TCP tracker dials: `host:port`, an IPv6 host in brackets, as `oem-sim`'s
 * `--<protocol> <host:port>` options take it. Shared by the protocols whose devices speak TCP.
 */
const HOST_PORT = /^(.+):(\d{1,5})$/;

/** `host:port`, an IPv6 host in brackets. */
export const tcpEndpoint = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Why `endpoint` is not `host:port`, worded for the option `flag`; undefined when it is. */
export function tcpEndpointProblem(endpoint: string, flag: string, example: string): string | undefined {
  const m = HOST_PORT.exec(endpoint);
  const port = m ? Number(m[2]) : 0;
  return m && port >= 1 && port <= 65535 ? undefined : `${flag} must be HOST:PORT, e.g. ${example}`;
}

/** The host (brackets removed) and port of an endpoint tcpEndpointProblem accepts. */
export function parseTcpEndpoint(endpoint: string): { readonly host: string; readonly port: number } {
  const [, host, port] = HOST_PORT.exec(endpoint) ?? [];
  return { host: (host ?? endpoint).replace(/^\[(.*)\]$/, '$1'), port: Number(port) };
}
