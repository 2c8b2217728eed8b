/**
 * What a tracker protocol is to the service: each protocol folder's `index.ts` exports one
 * module, and TRACKER_PROTOCOLS (tracker-protocols.ts) lists them. Everything that deals with
 * protocols reads the list: the gateway's listeners, the command link and dispatcher, the demo and
 * the simulated devices of tests. What the registry checks of a device (its id rule, the commands
 * it takes) is the domain's (domain/trackers.ts, below every adapter); the module refers to it.
 *
 * A folder holds the same files whatever the protocol: `index.ts` (this module), `decode.ts`,
 * `acks.ts`, `listener.ts`, `simulated-client.ts`, `simulated-device.ts`, `inspect.ts`, and `commands.ts` when
 * it has a downlink (test/gateway/protocol-conformance.test.ts checks them).
 */
import type { Logger } from 'pino';
import type { DEVICE_PROTOCOL_RULES, DeviceProtocol, ImmobilizerSettings } from '../domain/trackers.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { Inspection } from './inspected-frame.js';
import type { IntakeGroups } from './intake-groups.js';
import type { SimulatedTracker, SimulatedTrackerVehicle } from './simulated-tracker.js';
import type { TrackerConnectionCap } from './tracker-connection-cap.js';
import type { TrackerLookup } from './tracker-lookup.js';
import type { TrackerSessions } from './tracker-sessions.js';

/** One protocol's module; without an argument, any of them (a union, so each keeps its own parts' types). */
export type TrackerProtocolModule<P extends DeviceProtocol = DeviceProtocol> = P extends DeviceProtocol ? ProtocolModule<P> : never;

interface ProtocolModule<P extends DeviceProtocol> {
  /** Its name in the registry (`device.protocol`), the metrics' `protocol` label and the settings (`--<protocol>-port`). */
  readonly protocol: P;
  /** Its device id rule and the commands it carries, as the registry checks them. */
  readonly rules: (typeof DEVICE_PROTOCOL_RULES)[P];
  /** How commands reach its devices; null when its rules list none (no downlink). */
  readonly downlink: (typeof DEVICE_PROTOCOL_RULES)[P]['commands'] extends readonly [] ? null : TrackerDownlink;
  readonly listener: TrackerListenerPart;
  readonly simulated: SimulatedTrackerPart;
  /**
   * `telematics devices decode <protocol>`: what its listener makes of `input` (hex bytes, or the
   * text of a text protocol) at `now`, frame by frame, with no database (inspected-frame.ts). Not
   * named `inspect`: test and logging libraries call an object's `inspect` method to print it.
   */
  explain(input: string, now: number): Inspection;
}

export interface TrackerDownlink {
  /** The wire text of `command` for a device whose relay is wired as `immobilizer` says; undefined when it has none. */
  text(command: string, immobilizer: ImmobilizerSettings): string | undefined;
  /** Whether the device's `answer` says it ran `command`. */
  ran(command: string, answer: string): boolean;
}

export interface TrackerListenerPart {
  /** Traccar's port for the protocol, which devices and apps are often preset to: the demo listens there. */
  readonly demoPort: number;
  /** Whether it also listens over TLS on a port of its own (`--<protocol>-tls-port`, `-tls-cert`, `-tls-key`). */
  readonly tls: boolean;
  /** Starts listening, logs where, and resolves with the ports taken (0 asks for any). */
  listen(settings: TrackerListenSettings, context: TrackerListenerContext): Promise<TrackerListener>;
  /** What one of its simulated devices dials to reach a listener on `host` and `port`. */
  endpoint(host: string, port: number): string;
  /** One line for people (the demo banner): where its devices connect. */
  describe(listening: ListeningTracker): string;
}

export interface TrackerListenSettings {
  readonly port: number;
  /** Its TLS listener, when the protocol has one and it is configured. */
  readonly tls: { readonly port: number; readonly certFile: string; readonly keyFile: string } | undefined;
}

/** What every listener shares: the gateway's lookups, intake, sessions, metrics, caps and timeouts. */
export interface TrackerListenerContext {
  readonly host: string;
  readonly lookup: TrackerLookup;
  readonly intake: IntakeGroups;
  readonly sessions: TrackerSessions;
  readonly metrics: GatewayMetrics;
  readonly cap: TrackerConnectionCap;
  readonly logger: Logger;
  /** A connection that has not logged in by then is closed (for protocols with a login). */
  readonly loginTimeoutMs: number;
  /** A logged-in tracker silent for this long is closed (it reconnects when it has data). */
  readonly idleTimeoutMs: number;
}

export interface TrackerListener {
  readonly port: number;
  readonly tlsPort: number | undefined;
  close(): Promise<void>;
}

/** A listener as the running gateway reports it. */
export interface ListeningTracker {
  readonly port: number;
  readonly tlsPort: number | undefined;
  /** What a simulated device of the protocol dials to reach it from this machine. */
  readonly endpoint: string;
}

export interface SimulatedTrackerPart {
  /** `oem-sim`'s option naming where the service's listener of the protocol is, and the check of its value. */
  readonly option: { readonly flags: string; readonly description: string; problem(value: string): string | undefined };
  /**
   * A simulated device with `deviceId` that sends to `endpoint` (an `option` value, or a listener's
   * `endpoint`), connecting when it first sends; `vehicle` is its vehicle now, which a command may change.
   */
  device(endpoint: string, deviceId: string, vehicle: () => SimulatedTrackerVehicle | undefined): SimulatedTracker;
}
