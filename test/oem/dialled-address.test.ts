/**
 * Finding 9: an automaker that controls its DNS cannot make the service dial inside our network.
 * The check is on the address actually dialled (after resolution), not on the host name, so a
 * name that rebinds to loopback, a private or a metadata address is refused, while an OEM whose
 * configured base URL is itself on such an address (the simulated cloud on 127.0.0.1, an adapter
 * on the private network) keeps working.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dialPolicyFor } from '../../src/domain/dial-policy.js';
import { HttpConnector } from '../../src/oem/http-connector.js';
import { HttpExchange } from '../../src/oem/http-exchange.js';
import { OemFailure } from '../../src/oem/oem-connector.js';

/** An internal service on loopback that an outside automaker must never reach; it records every request. */
const seen: string[] = [];
let internal: Server;
let port: number;

beforeAll(async () => {
  internal = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ status_url: `http://${req.headers.host}/status/c1`, status: 'pending' }));
  });
  await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
  port = (internal.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => { internal.closeAllConnections(); internal.close(() => r()); }));
beforeEach(() => { seen.length = 0; });

/** The automaker's DNS: `automaker.example` resolves to whatever it chooses. */
function rebindingDns(address: string): LookupFunction {
  const family = address.includes(':') ? 6 : 4;
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

const request = { commandId: 'c1', vin: '9BWZZZ377VT004251', command: 'diagnostics' };
const settings = (baseUrl: string, lookup?: LookupFunction) => ({ baseUrl, initiateTimeoutMs: 2_000, pollTimeoutMs: 2_000, lookup });

async function failure(promise: Promise<unknown>): Promise<OemFailure> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(OemFailure);
  return error as OemFailure;
}

describe('the address an automaker connection dials', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback, IPv4-mapped IPv6', '::ffff:127.0.0.1'],
    ['another loopback address', '127.0.0.2'],
  ])('when an automaker host name resolves to %s, then initiation is refused as "send" and nothing is dialled', async (_name, address) => {
    const connector = new HttpConnector(settings(`http://automaker.example:${port}`, rebindingDns(address)));
    const error = await failure(connector.initiate(request));
    expect(error.kind).toBe('send');
    expect(error.message).toMatch(/refused to dial/);
    expect(seen).toEqual([]);
  });

  it('when an automaker host name resolves to loopback at poll time, then the poll fails as "send" (polled again until the deadline) and nothing is dialled', async () => {
    const connector = new HttpConnector(settings(`http://automaker.example:${port}`, rebindingDns('127.0.0.1')));
    expect((await failure(connector.poll(`http://automaker.example:${port}/status/c1`))).kind).toBe('send');
    expect(seen).toEqual([]);
  });

  it.each([
    ['the cloud metadata address', '169.254.169.254'],
    ['the IPv6 cloud metadata address', 'fd00:ec2::254'],
    ['a private address', '10.0.0.5'],
  ])('when an automaker host name resolves to %s, then initiation is refused before any connection', async (_name, address) => {
    const connector = new HttpConnector(settings(`http://automaker.example:${port}`, rebindingDns(address)));
    const started = Date.now();
    const error = await failure(connector.initiate(request));
    expect(error.kind).toBe('send');
    expect(error.message).toMatch(/refused to dial/);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('when an exchange for a host-name OEM is handed a loopback IP literal (no lookup happens for literals), then it is refused too', async () => {
    const exchange = new HttpExchange({ dialPolicy: dialPolicyFor('automaker.example') });
    const error = await exchange.send(new URL(`http://127.0.0.1:${port}/commands`), { method: 'GET', headers: {}, timeoutMs: 2_000, maxBytes: 1024 }).then(() => undefined, (e: Error) => e);
    expect(error?.message).toMatch(/refused to dial/);
    expect(seen).toEqual([]);
    exchange.close();
  });

  it('when the base URL is literally 127.0.0.1, then the OEM on loopback keeps working', async () => {
    const connector = new HttpConnector(settings(`http://127.0.0.1:${port}`));
    expect(await connector.initiate(request)).toEqual({ statusUrl: `http://127.0.0.1:${port}/status/c1` });
    expect(await connector.poll(`http://127.0.0.1:${port}/status/c1`)).toEqual({ state: 'pending' });
    expect(seen).toEqual(['POST /commands', 'GET /status/c1']);
  });

  it('when the base URL is localhost, then loopback is allowed (the name is the operator\'s, resolved from the hosts file)', async () => {
    const connector = new HttpConnector(settings(`http://localhost:${port}`, rebindingDns('127.0.0.1')));
    expect(await connector.initiate(request)).toEqual({ statusUrl: `http://localhost:${port}/status/c1` });
  });

  it('when the base URL is localhost but it resolves to the metadata address, then it is refused', async () => {
    const connector = new HttpConnector(settings(`http://localhost:${port}`, rebindingDns('169.254.169.254')));
    const error = await failure(connector.initiate(request));
    expect(error.kind).toBe('send');
    expect(error.message).toMatch(/refused to dial/);
  });
});
