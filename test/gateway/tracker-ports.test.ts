/** Which tracker listeners the configuration asks for, read through every protocol module. */
import { describe, expect, it } from 'vitest';
import { demoTrackerPorts, portFlagsOf, trackerListenersOf, trackerListenersWanted } from '../../src/gateway/tracker-ports.js';
import { trackerProtocol } from '../../src/gateway/tracker-protocols.js';

const none = { teltonikaPort: undefined, osmandPort: undefined, gt06Port: undefined };

describe('tracker ports', () => {
  it('when no tracker port is set, then nothing listens and the gateway role has nothing to run', () => {
    expect(trackerListenersOf(none)).toEqual({});
    expect(trackerListenersWanted(none)).toBe(false);
  });

  it('when some ports are set, then exactly those protocols listen', () => {
    expect(trackerListenersOf({ ...none, osmandPort: 5055 })).toEqual({ osmand: { port: 5055, tls: undefined } });
    expect(trackerListenersWanted({ ...none, osmandPort: 0 })).toBe(true);
    expect(trackerListenersOf({ ...none, teltonikaPort: 0, osmandPort: 0 })).toEqual({ teltonika: { port: 0, tls: undefined }, osmand: { port: 0, tls: undefined } });
  });

  it('when a TLS port, certificate and key are all set, then the protocol\'s TLS listener is configured; with one missing, then it is not', () => {
    const tls = { teltonikaTlsPort: 5028, teltonikaTlsCert: 'c.pem', teltonikaTlsKey: 'k.pem' };
    expect(trackerListenersOf({ ...none, teltonikaPort: 5027, ...tls }).teltonika).toEqual({ port: 5027, tls: { port: 5028, certFile: 'c.pem', keyFile: 'k.pem' } });
    expect(trackerListenersOf({ ...none, teltonikaPort: 5027, ...tls, teltonikaTlsKey: undefined }).teltonika).toEqual({ port: 5027, tls: undefined });
  });

  it('when the demo fills in ports, then only those not set get their protocol\'s demo port', () => {
    expect(demoTrackerPorts({})).toEqual({ teltonikaPort: 5027, osmandPort: 5055, gt06Port: 5023 });
    expect(demoTrackerPorts({ teltonikaPort: 0 })).toEqual({ osmandPort: 5055, gt06Port: 5023 });
  });

  it('when a port is taken, then the settings named are the protocol\'s own', () => {
    expect(portFlagsOf(trackerProtocol('teltonika'))).toBe('--teltonika-port / --teltonika-tls-port');
    expect(portFlagsOf(trackerProtocol('osmand'))).toBe('--osmand-port');
  });
});
