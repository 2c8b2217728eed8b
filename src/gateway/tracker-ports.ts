/**
 * The tracker listeners the configuration asks for. Each protocol's port is the setting
 * `<protocol>Port` (`--<protocol>-port`; unset, it does not listen), and a protocol with a TLS
 * listener reads `<protocol>TlsPort`, `…TlsCert` and `…TlsKey`: the type below makes the
 * configuration carry a port for every protocol in the list.
 */
import type { DeviceProtocol } from '../domain/trackers.js';
import type { TrackerListenSettings, TrackerProtocolModule } from './tracker-protocol-module.js';
import { TRACKER_PROTOCOLS } from './tracker-protocols.js';

export type TrackerPortsConfig =
  & { readonly [P in DeviceProtocol as `${P}Port`]: number | undefined }
  & { readonly [P in DeviceProtocol as `${P}TlsPort`]?: number | undefined }
  & { readonly [P in DeviceProtocol as `${P}TlsCert` | `${P}TlsKey`]?: string | undefined };

/** The listeners to start, by protocol; a protocol absent does not listen. */
export type TrackerListeners = { readonly [P in DeviceProtocol]?: TrackerListenSettings };

export function trackerListenersOf(config: TrackerPortsConfig): TrackerListeners {
  const listeners: { [P in DeviceProtocol]?: TrackerListenSettings } = {};
  for (const { protocol, listener } of TRACKER_PROTOCOLS) {
    const port = config[`${protocol}Port`];
    if (port === undefined) continue;
    const tlsPort = config[`${protocol}TlsPort`];
    const certFile = config[`${protocol}TlsCert`];
    const keyFile = config[`${protocol}TlsKey`];
    const tls = listener.tls && tlsPort !== undefined && certFile !== undefined && keyFile !== undefined ? { port: tlsPort, certFile, keyFile } : undefined;
    listeners[protocol] = { port, tls };
  }
  return listeners;
}

/** Whether any tracker port is set: the `gateway` role then runs. */
export const trackerListenersWanted = (config: TrackerPortsConfig): boolean =>
  TRACKER_PROTOCOLS.some(({ protocol }) => config[`${protocol}Port`] !== undefined);

/** With `--demo`, each protocol whose port is not set listens on its demo port: `{ teltonikaPort: 5027, … }`. */
export function demoTrackerPorts(values: Readonly<Record<string, unknown>>): Record<string, number> {
  return Object.fromEntries(TRACKER_PROTOCOLS.filter(({ protocol }) => values[`${protocol}Port`] === undefined)
    .map(({ protocol, listener }) => [`${protocol}Port`, listener.demoPort]));
}

/** The settings that move a protocol's ports, for an operator whose port is taken. */
export const portFlagsOf = ({ protocol, listener }: TrackerProtocolModule): string =>
  [`--${protocol}-port`, ...(listener.tls ? [`--${protocol}-tls-port`] : [])].join(' / ');
