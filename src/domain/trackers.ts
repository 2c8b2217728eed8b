/**
 * Trackers in the registry (OPERATIONS.md "Trackers", D11): which protocols a vehicle's own
 * device may speak, what a device id looks like, which commands each protocol can carry, and the
 * text a command becomes. Pure: no I/O.
 */
import type { CommandName } from './command-catalogue.js';

export const DEVICE_PROTOCOLS = Object.freeze(['teltonika', 'osmand'] as const);
export type DeviceProtocol = (typeof DEVICE_PROTOCOLS)[number];

export interface VehicleDevice {
  readonly protocol: DeviceProtocol;
  readonly id: string;
}

/**
 * A Teltonika tracker logs in with its 15-digit IMEI. OsmAnd apps send whatever id the user set
 * (Traccar Client defaults to 8 random digits): letters, digits and a few separators.
 */
export const DEVICE_ID_RULES: Readonly<Record<DeviceProtocol, { readonly pattern: RegExp; readonly rule: string }>> = Object.freeze({
  teltonika: { pattern: /^\d{15}$/, rule: 'a 15-digit IMEI' },
  osmand: { pattern: /^[A-Za-z0-9_.:-]{1,64}$/, rule: '1-64 letters, digits, ".", ":", "_" or "-"' },
});

export const isDeviceProtocol = (value: unknown): value is DeviceProtocol => (DEVICE_PROTOCOLS as readonly unknown[]).includes(value);

/** Why `id` cannot be a device id of `protocol`; undefined when it can. */
export function deviceIdProblem(protocol: DeviceProtocol, id: unknown): string | undefined {
  const { pattern, rule } = DEVICE_ID_RULES[protocol];
  return typeof id === 'string' && pattern.test(id) ? undefined : `${JSON.stringify(id ?? null)} is not a ${protocol} device id (${rule})`;
}

/** `--device teltonika:<IMEI>` read into a device, or the problem with it. */
export function parseDeviceText(text: string): VehicleDevice | { readonly problem: string } {
  const colon = text.indexOf(':');
  const protocol = colon < 0 ? text : text.slice(0, colon);
  if (!isDeviceProtocol(protocol)) return { problem: `--device must be <protocol>:<id> with protocol ${DEVICE_PROTOCOLS.join(' or ')}` };
  const id = text.slice(colon + 1);
  const problem = colon < 0 ? `--device must be ${protocol}:<id>` : deviceIdProblem(protocol, id);
  return problem === undefined ? { protocol, id } : { problem };
}

/** OsmAnd has no downlink (D11): its vehicles take no command, whatever the plan and OEM allow. */
export const DEVICE_COMMANDS: Readonly<Record<DeviceProtocol, readonly CommandName[]>> = Object.freeze({
  teltonika: ['diagnostics', 'disable_ignition', 'enable_ignition'],
  osmand: [],
});

/** The commands that switch the relay: refused while the vehicle moves, answered with output states. */
export const IGNITION_COMMANDS: ReadonlySet<string> = new Set(['disable_ignition', 'enable_ignition']);

export function deviceTakes(protocol: string | null, command: string): boolean {
  return protocol === null || (isDeviceProtocol(protocol) && (DEVICE_COMMANDS[protocol] as readonly string[]).includes(command));
}

/**
 * Which digital output of a `device` OEM's trackers drives the ignition relay, and which state
 * cuts it (D11: output and polarity per OEM entry). The wiring is the installer's choice, never
 * assumed beyond this default.
 */
export interface ImmobilizerSettings {
  readonly output: number;
  readonly cut: 'on' | 'off';
}
export const DEFAULT_IMMOBILIZER: ImmobilizerSettings = Object.freeze({ output: 1, cut: 'on' });
export const MAX_DIGITAL_OUTPUT = 4;

/**
 * The Codec 12 text of a command: `setdigout` with one state character per output up to the
 * relay's (`?` leaves the others as they are), `getinfo` for diagnostics.
 */
export function trackerCommandText(command: string, immobilizer: ImmobilizerSettings = DEFAULT_IMMOBILIZER): string | undefined {
  if (command === 'diagnostics') return 'getinfo';
  if (command !== 'disable_ignition' && command !== 'enable_ignition') return undefined;
  const cut = immobilizer.cut === 'on' ? '1' : '0';
  const state = command === 'disable_ignition' ? cut : cut === '1' ? '0' : '1';
  return `setdigout ${'?'.repeat(immobilizer.output - 1)}${state}`;
}

/**
 * Stored OEM tracker settings (JSON, written by the fleet file's checks) read back: none stored is
 * the default; settings that cannot be read are undefined, and no relay command is guessed from them.
 */
export function parseImmobilizer(stored: string | null): ImmobilizerSettings | undefined {
  if (stored === null) return DEFAULT_IMMOBILIZER;
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return undefined;
  }
  const im = (value as { immobilizer?: unknown } | null)?.immobilizer;
  if (im === undefined) return DEFAULT_IMMOBILIZER;
  const { output, cut } = (im ?? {}) as Partial<ImmobilizerSettings>;
  if (typeof output !== 'number' || !Number.isInteger(output) || output < 1 || output > MAX_DIGITAL_OUTPUT || (cut !== 'on' && cut !== 'off')) return undefined;
  return { output, cut };
}
