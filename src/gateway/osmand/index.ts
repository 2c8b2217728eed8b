/**
 * Phone tracking apps speaking OsmAnd (Traccar Client, the OsmAnd app) over HTTP (research note
 * §6): positions in, no downlink.
 */
import { DEVICE_PROTOCOL_RULES } from '../../domain/trackers.js';
import type { TrackerProtocolModule } from '../tracker-protocol-module.js';
import { inspectOsmand } from './inspect.js';
import { osmandEndpoint, osmandEndpointProblem, SimulatedOsmandPhone } from './simulated-device.js';

export const osmand: TrackerProtocolModule<'osmand'> = {
  protocol: 'osmand',
  rules: DEVICE_PROTOCOL_RULES.osmand,
  downlink: null,
  listener: {
    demoPort: 5055,
    tls: false,
    // Loaded when a listener starts: its HTTP server would otherwise weigh on every CLI command,
    // which reads this module through the configuration's port settings.
    listen: async (settings, context) => (await import('./listener.js')).startOsmandListener(settings, context),
    endpoint: osmandEndpoint,
    describe: ({ endpoint }) => `OsmAnd phone apps: ${endpoint.replace(/\/$/, '')}`,
  },
  simulated: {
    option: {
      flags: '--osmand-url <url>',
      description: 'the service\'s OsmAnd listener, e.g. http://127.0.0.1:5055: vehicles with an osmand device and a sim block post there',
      problem: osmandEndpointProblem,
    },
    device: (endpoint, deviceId) => new SimulatedOsmandPhone(endpoint, deviceId),
  },
  explain: inspectOsmand,
};
