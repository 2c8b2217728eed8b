/**
 * Trackers in the registry (OPERATIONS.md "Trackers", D11): which protocols a vehicle's own
 * device may speak, what a device id of each looks like, and which commands each can carry. Pure:
 * no I/O. The rest of a protocol (wire format, listener, command texts, simulated device) is its
 * gateway module (gateway/<protocol>/index.ts), which refers to its entry here: the fleet file is
 * checked in the domain, which imports no adapter.
 */
import type { CommandName } from './command-catalogue.js';

/** What the registry knows of one tracker protocol. */
export interface DeviceProtocolRules {
  /** What a device id looks like, the rule as a refusal states it, and one id that follows it (CLI help, tests). */
  readonly id: { readonly pattern: RegExp; readonly rule: string; readonly example: string };
  /** The commands it can carry to a device; none: it has no downlink. */
  readonly commands: readonly CommandName[];
}

/**
 * One entry per protocol, in the order operators see them listed; the gateway must have a module
 * for each (gateway/tracker-protocols.ts). A Teltonika tracker logs in with its 15-digit IMEI.
 * OsmAnd apps send whatever id the user set (Traccar Client defaults to 8 random digits): letters,
 * digits and a few separators; OsmAnd has no downlink (D11), so its vehicles take no command,
 * whatever the plan and OEM allow. A GT06/Concox tracker logs in with its IMEI too (the terminal
 * id's 16 BCD digits less the leading 0).
 */
export const DEVICE_PROTOCOL_RULES = Object.freeze({
  teltonika: {
    id: { pattern: /^\d{15}$/, rule: 'a 15-digit IMEI', example: '356307042441013' },
    commands: Object.freeze(['diagnostics', 'disable_ignition', 'enable_ignition'] as const),
  },
  osmand: {
    id: { pattern: /^[A-Za-z0-9_.:-]{1,64}$/, rule: '1-64 letters, digits, ".", ":", "_" or "-"', example: '48241179' },
    commands: Object.freeze([] as const),
  },
  gt06: {
    id: { pattern: /^\d{15}$/, rule: 'a 15-digit IMEI', example: '864717003283581' },
    commands: Object.freeze(['diagnostics', 'disable_ignition', 'enable_ignition'] as const),
  },
}) satisfies Readonly<Record<string, DeviceProtocolRules>>;

export type DeviceProtocol = keyof typeof DEVICE_PROTOCOL_RULES;
export const DEVICE_PROTOCOLS: readonly DeviceProtocol[] = Object.freeze(Object.keys(DEVICE_PROTOCOL_RULES) as DeviceProtocol[]);

export interface VehicleDevice {
  readonly protocol: DeviceProtocol;
  readonly id: string;
}

export const isDeviceProtocol = (value: unknown): value is DeviceProtocol => (DEVICE_PROTOCOLS as readonly unknown[]).includes(value);

/** Why `id` cannot be a device id of `protocol`; undefined when it can. */
export function deviceIdProblem(protocol: DeviceProtocol, id: unknown): string | undefined {
  const { pattern, rule } = DEVICE_PROTOCOL_RULES[protocol].id;
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

/** `teltonika:356307042441013 or osmand:48241179`: one device of each protocol, as `--device` takes it. */
export const DEVICE_TEXT_EXAMPLES: string = DEVICE_PROTOCOLS.map((p) => `${p}:${DEVICE_PROTOCOL_RULES[p].id.example}`).join(' or ');

/** The commands that switch the relay: refused while the vehicle moves, answered with output states. */
export const IGNITION_COMMANDS: ReadonlySet<string> = new Set(['disable_ignition', 'enable_ignition']);

export function deviceTakes(protocol: string | null, command: string): boolean {
  return protocol === null || (isDeviceProtocol(protocol) && (DEVICE_PROTOCOL_RULES[protocol].commands as readonly string[]).includes(command));
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
