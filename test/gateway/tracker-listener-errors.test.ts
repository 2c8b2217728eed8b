/**
 * A listening tracker server's 'error' must not end the process. On Linux, Node 20's libuv sheds
 * connections it cannot accept for lack of descriptors without telling Node (the process test in
 * tracker-descriptor-limit.test.ts covers what the service then does); where libuv reports the
 * failed accept instead, Node emits 'error' on the server, which with no listener is thrown. Here
 * the report goes through Node's own path: the handle's `onconnection` with libuv's error code.
 */
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { constants } from 'node:os';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/gateway/gateway-metrics.js';
import { TrackerConnectionCap } from '../../src/gateway/tracker-connection-cap.js';

/** What libuv hands Node when accept() fails: the negative errno. */
function reportAcceptFailure(server: Server, errno: number): void {
  (server as unknown as { _handle: { onconnection(status: number): void } })._handle.onconnection(-errno);
}

describe('tracker listener errors', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  const listening = async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  };

  it('when Node reports a failed accept on a server without a guard, then it throws (what would end the process)', async () => {
    const server = await listening();
    expect(() => reportAcceptFailure(server, constants.errno.EMFILE)).toThrow(/accept EMFILE/);
  });

  it('when it reports one on a guarded server, then nothing is thrown: lack of descriptors is the refusal warning, once a minute, anything else a warning of its own; the server still accepts', async () => {
    const lines: string[] = [];
    const logger = pino({ base: {}, timestamp: false }, { write: (line: string) => void lines.push(line) });
    const cap = new TrackerConnectionCap({ total: 10, perAddress: 0 }, new GatewayMetrics(new Registry()), logger);
    const server = await listening();
    cap.guard(server, 'teltonika tcp');

    reportAcceptFailure(server, constants.errno.EMFILE);
    reportAcceptFailure(server, constants.errno.ENFILE);
    reportAcceptFailure(server, constants.errno.EINVAL);
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string; listener: string; syscall?: string });
    expect(warnings.map((w) => [w.level, w.listener, w.msg])).toEqual([
      [40, 'teltonika tcp', expect.stringContaining('the process has no file descriptors left') as string],
      [40, 'teltonika tcp', 'tracker listener error'],
    ]);
    expect(warnings[0]!.syscall).toBe('accept');

    const { port } = server.address() as AddressInfo;
    const accepted = new Promise((resolve) => server.once('connection', (socket) => { socket.destroy(); resolve(true); }));
    const client = connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    expect(await accepted).toBe(true);
    client.destroy();
  });
});
