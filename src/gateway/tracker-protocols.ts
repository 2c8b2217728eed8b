/**
 * The tracker protocols the gateway speaks, one module each (tracker-protocol-module.ts). The
 * record below must name one for every protocol the registry accepts (domain/trackers.ts) and
 * nothing else: the compiler holds the two lists together. Adding a protocol is its folder, its
 * entry in the domain's rules, and one name here.
 */
import type { DeviceProtocol } from '../domain/trackers.js';
import { gt06 } from './gt06/index.js';
import { osmand } from './osmand/index.js';
import { teltonika } from './teltonika/index.js';
import type { TrackerProtocolModule } from './tracker-protocol-module.js';

const BY_PROTOCOL: { readonly [P in DeviceProtocol]: TrackerProtocolModule<P> } = Object.freeze({ teltonika, osmand, gt06 });

/** Every protocol's module, in the domain's order (listeners start and close in it). */
export const TRACKER_PROTOCOLS: readonly TrackerProtocolModule[] = Object.freeze(Object.values(BY_PROTOCOL));

export const trackerProtocol = <P extends DeviceProtocol>(protocol: P): TrackerProtocolModule<P> => BY_PROTOCOL[protocol];
