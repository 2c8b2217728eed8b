/**
 * GT06/Concox trackers (research note §1-§3): binary frames over TCP, commands as SMS-style texts
 * (`Relay,1#`) in 0x80 frames, each answer matched to its command by a server flag.
 */
import { DEVICE_PROTOCOL_RULES } from '../../domain/trackers.js';
import type { TrackerProtocolModule } from '../tracker-protocol-module.js';
import { inspectGt06 } from './inspect.js';
import { gt06AnswerRan, gt06CommandText } from './commands.js';
import { startGt06Listener } from './listener.js';
import { gt06Endpoint, gt06EndpointProblem, SimulatedGt06Tracker } from './simulated-device.js';

export const gt06: TrackerProtocolModule<'gt06'> = {
  protocol: 'gt06',
  rules: DEVICE_PROTOCOL_RULES.gt06,
  downlink: { text: gt06CommandText, ran: gt06AnswerRan },
  listener: {
    demoPort: 5023,
    tls: false,
    listen: startGt06Listener,
    endpoint: gt06Endpoint,
    describe: ({ port }) => `GT06/Concox trackers: TCP port ${port}`,
  },
  simulated: {
    option: {
      flags: '--gt06 <host:port>',
      description: 'the service\'s GT06 listener: vehicles of device OEMs with a gt06 device and a sim block connect there as trackers',
      problem: gt06EndpointProblem,
    },
    device: (endpoint, imei, vehicle) => new SimulatedGt06Tracker(endpoint, imei, vehicle),
  },
  explain: inspectGt06,
};
