/**
 * The optional TLS listener for Teltonika trackers configured for it: the same protocol inside
 * TLS, so the IMEI (the tracker's only identity) and its records never cross the network in clear.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLogin, encodeTcpPacket } from '../../src/gateway/teltonika/encode.js';
import { CODEC_8E } from '../../src/gateway/teltonika/avl-record.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { avlRecord, TRACKED, trackerFleet } from '../support/tracker-fleet.js';

describe('Teltonika over TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'telematics-tls-'));
  let svc: TestService;

  beforeAll(async () => {
    const certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
    svc = await startTestService('sqlite', trackerFleet(), { gateway: { tls: { certFile, keyFile } } });
  });
  afterAll(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a tracker logs in and sends a packet over TLS, then it is accepted and acknowledged as over TCP', async () => {
    expect(svc.gateway!.listening.teltonika!.tlsPort).toBeGreaterThan(0);
    const socket = connect({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.tlsPort!, rejectUnauthorized: false });
    const received: Buffer[] = [];
    socket.on('data', (b: Buffer) => received.push(b));
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write(encodeLogin(TRACKED.teltonika.imei));
    await expect.poll(() => Buffer.concat(received).toString('hex')).toBe('01');
    socket.write(encodeTcpPacket(CODEC_8E, [avlRecord(T0 - 1000)]));
    await expect.poll(() => Buffer.concat(received).toString('hex')).toBe('0100000001');
    socket.destroy();
    const metric = (await svc.metrics.getSingleMetric('tracker_acks_total')?.get())?.values.find((v) => v.labels.transport === 'tls');
    expect(metric?.value).toBe(1);
  });
});
