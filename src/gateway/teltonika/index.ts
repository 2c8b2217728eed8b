/**
 * Teltonika FMB trackers (research note §1-§3): AVL packets over TCP and UDP on one port, TLS on
 * another, commands as Codec 12 texts on the tracker's open connection.
 */
import { DEVICE_PROTOCOL_RULES } from '../../domain/trackers.js';
import type { TrackerProtocolModule } from '../tracker-protocol-module.js';
import { inspectTeltonika } from './inspect.js';
import { teltonikaAnswerRan, teltonikaCommandText } from './commands.js';
import { startTeltonikaListener } from './listener.js';
import { SimulatedTeltonikaTracker, teltonikaEndpoint, teltonikaEndpointProblem } from './simulated-device.js';

export const teltonika: TrackerProtocolModule<'teltonika'> = {
  protocol: 'teltonika',
  rules: DEVICE_PROTOCOL_RULES.teltonika,
  downlink: { text: teltonikaCommandText, ran: teltonikaAnswerRan },
  listener: {
    demoPort: 5027,
    tls: true,
    listen: startTeltonikaListener,
    endpoint: teltonikaEndpoint,
    describe: ({ port }) => `Teltonika trackers: TCP and UDP port ${port}`,
  },
  simulated: {
    option: {
      flags: '--teltonika <host:port>',
      description: 'the service\'s Teltonika listener: vehicles of device OEMs with a teltonika device and a sim block connect there as trackers',
      problem: teltonikaEndpointProblem,
    },
    device: (endpoint, imei, vehicle) => new SimulatedTeltonikaTracker(endpoint, imei, vehicle),
  },
  explain: inspectTeltonika,
};
