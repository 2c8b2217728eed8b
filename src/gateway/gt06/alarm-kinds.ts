/**
 * Names for the GT06 alarm byte (alarm packets and heartbeats) and for the alarm bits of the
 * terminal information byte, from the Concox JM-VL03 protocol tables (research note §2). Vendors
 * disagree on some codes (Traccar reads 0x0C as tampering, 0x09 as vibration), so every decoded
 * alarm keeps its raw code beside the name, and a per-model mapping can override the name later.
 */

export type AlarmKind =
  | 'none' | 'sos' | 'power_cut' | 'vibration' | 'geofence_enter' | 'geofence_exit' | 'overspeed' | 'tow'
  | 'gps_blind_spot_enter' | 'gps_blind_spot_exit' | 'power_on' | 'gps_first_fix' | 'low_external_battery'
  | 'low_external_battery_protection' | 'sim_changed' | 'power_off' | 'airplane_mode' | 'tamper' | 'door'
  | 'low_battery_power_off' | 'sound' | 'rogue_base_station' | 'cover_removed' | 'low_internal_battery'
  | 'deep_sleep' | 'fall' | 'harsh_acceleration' | 'sharp_turn_left' | 'sharp_turn_right' | 'collision'
  | 'harsh_braking' | 'unplugged' | 'acc_on' | 'acc_off' | 'unknown';

const BY_CODE: ReadonlyMap<number, AlarmKind> = new Map<number, AlarmKind>([
  [0x00, 'none'], [0x01, 'sos'], [0x02, 'power_cut'], [0x03, 'vibration'], [0x04, 'geofence_enter'],
  [0x05, 'geofence_exit'], [0x06, 'overspeed'], [0x09, 'tow'], [0x0a, 'gps_blind_spot_enter'],
  [0x0b, 'gps_blind_spot_exit'], [0x0c, 'power_on'], [0x0d, 'gps_first_fix'], [0x0e, 'low_external_battery'],
  [0x0f, 'low_external_battery_protection'], [0x10, 'sim_changed'], [0x11, 'power_off'], [0x12, 'airplane_mode'],
  [0x13, 'tamper'], [0x14, 'door'], [0x15, 'low_battery_power_off'], [0x16, 'sound'], [0x17, 'rogue_base_station'],
  [0x18, 'cover_removed'], [0x19, 'low_internal_battery'], [0x20, 'deep_sleep'], [0x23, 'fall'],
  [0x29, 'harsh_acceleration'], [0x2a, 'sharp_turn_left'], [0x2b, 'sharp_turn_right'], [0x2c, 'collision'],
  [0x30, 'harsh_braking'], [0x32, 'unplugged'], [0xfe, 'acc_on'], [0xff, 'acc_off'],
]);

export interface Alarm {
  /** The byte as sent: what a per-model mapping reads. */
  readonly code: number;
  readonly kind: AlarmKind;
}

export const alarmOf = (code: number): Alarm => ({ code, kind: BY_CODE.get(code) ?? 'unknown' });

/**
 * Bits 3–5 of the terminal information byte. Concox defines 1–4; Traccar reads 6 as a geofence
 * alarm and 7 as the device being removed, and a captured alarm packet says 7 with an alarm byte
 * of 0, so the bits can be the only alarm a packet carries.
 */
export type TerminalAlarm = 'none' | 'vibration' | 'power_cut' | 'low_battery' | 'sos' | 'geofence' | 'cover_removed' | 'unknown';

const TERMINAL_ALARMS: readonly TerminalAlarm[] = ['none', 'vibration', 'power_cut', 'low_battery', 'sos', 'unknown', 'geofence', 'cover_removed'];

export interface TerminalInfo {
  /** The byte as sent. */
  readonly raw: number;
  /** Bit 7: the fuel/power cut relay is engaged (what an engine-stop command sets). */
  readonly powerCut: boolean;
  /** Bit 6: GPS tracking is on. */
  readonly gpsTracking: boolean;
  readonly alarm: TerminalAlarm;
  /** Bit 2: external power is connected and charging. */
  readonly charging: boolean;
  /** Bit 1: ACC (ignition) on. */
  readonly acc: boolean;
  /** Bit 0: armed (defence on). */
  readonly armed: boolean;
}

export function terminalInfoOf(raw: number): TerminalInfo {
  return {
    raw,
    powerCut: (raw & 0x80) !== 0,
    gpsTracking: (raw & 0x40) !== 0,
    alarm: TERMINAL_ALARMS[(raw >> 3) & 7]!,
    charging: (raw & 0x04) !== 0,
    acc: (raw & 0x02) !== 0,
    armed: (raw & 0x01) !== 0,
  };
}
