/**
 * `--tracker-connections` and `--tracker-connections-per-address` over real sockets: one address
 * cannot hold more than its share, and the total covers the Teltonika and OsmAnd listeners
 * together; a refused connection is closed at once and counted by reason, and a slot freed by a
 * closed connection is taken again. (The process-level case, with a real open-file limit, is
 * tracker-descriptor-limit.test.ts.)
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { metricValue } from '../support/metrics-text.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { trackerFleet } from '../support/tracker-fleet.js';
import { until } from '../support/until.js';

interface Probe { readonly socket: Socket; closed: boolean }

describe.each(DATABASE_KINDS)('tracker connection caps on %s', (kind) => {
  let svc: TestService;
  const probes: Probe[] = [];

  beforeAll(async () => {
    svc = await startTestService(kind, trackerFleet(), { gateway: { connections: { total: 6, perAddress: 4 } } });
  });
  afterAll(async () => {
    for (const probe of probes) probe.socket.destroy();
    await svc?.close();
  });

  /** A connection that sends nothing, from `localAddress` (any 127.x address is this host's loopback). */
  const open = (port: number, localAddress: string) => new Promise<Probe>((resolve) => {
    const probe: Probe = { socket: connect({ port, host: '127.0.0.1', localAddress }, () => resolve(probe)), closed: false };
    probe.socket.on('error', () => resolve(probe));
    probe.socket.once('close', () => { probe.closed = true; });
    probes.push(probe);
  });
  const refused = (transport: string, reason: string) =>
    metricValue(svc.metrics, 'tracker_connections_refused_total', { protocol: transport === 'http' ? 'osmand' : 'teltonika', transport, reason });
  /** Closed by the service shortly (a refusal), or still open after it (admitted). */
  const settle = async (probe: Probe) => { await until('the service answers the connection', async () => probe.closed, 300, 10).catch(() => undefined); return probe.closed; };

  it('when one address opens more than its share, or all addresses more than the total, then the extra connections are closed at once and counted; a freed slot is taken again', async () => {
    const teltonika = svc.gateway!.listening.teltonika!.port;
    const osmand = svc.gateway!.listening.osmand!.port;
    const first = await Promise.all([1, 2, 3, 4].map(() => open(teltonika, '127.0.0.1')));
    const overShare = await open(teltonika, '127.0.0.1');
    expect(await settle(overShare)).toBe(true);
    expect(first.map((p) => p.closed)).toEqual([false, false, false, false]);
    expect(await refused('tcp', 'address')).toBe(1);

    // Two more from another address fill the total of 6; the OsmAnd port counts in the same total.
    const second = await Promise.all([open(teltonika, '127.0.0.2'), open(osmand, '127.0.0.2')]);
    const overTotal = await open(osmand, '127.0.0.3');
    expect(await settle(overTotal)).toBe(true);
    expect(second.map((p) => p.closed)).toEqual([false, false]);
    expect(await refused('http', 'total')).toBe(1);
    const phone = await fetch(`http://127.0.0.1:${osmand}/?id=48241179&lat=1&lon=2`, { signal: AbortSignal.timeout(2000) }).catch((error: unknown) => error);
    expect(phone).toBeInstanceOf(Error);

    first[0]!.socket.destroy();
    await until('the freed slot is counted free', async () => (await fetch(`http://127.0.0.1:${osmand}/?lat=1`, { signal: AbortSignal.timeout(500) })).status === 400, 3000);
    expect(await refused('http', 'total')).toBeGreaterThanOrEqual(2);
  });
});
