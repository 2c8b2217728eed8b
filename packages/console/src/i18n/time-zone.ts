/**
 * The zone the console shows times in. The service writes every instant at -03:00 without saying
 * so; a reader elsewhere must be told which zone a time is in, and may prefer their own. The API's
 * formats never change: this is display only. A preference, not a secret: kept in localStorage.
 */
export type ZoneChoice = 'service' | 'browser' | 'utc';
export const ZONE_CHOICES: readonly ZoneChoice[] = ['service', 'browser', 'utc'];

/** The interface's zone: São Paulo, at -03:00 all year since 2019. */
export const SERVICE_ZONE = 'America/Sao_Paulo';
const STORAGE_KEY = 'telematics-console-zone';

export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function zoneOf(choice: ZoneChoice): string {
  return choice === 'service' ? SERVICE_ZONE : choice === 'utc' ? 'UTC' : browserZone();
}

export function initialZone(): ZoneChoice {
  const stored = storage()?.getItem(STORAGE_KEY);
  return (ZONE_CHOICES as readonly string[]).includes(stored ?? '') ? (stored as ZoneChoice) : 'service';
}

export function rememberZone(choice: ZoneChoice): void {
  storage()?.setItem(STORAGE_KEY, choice);
}

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** Minutes east of UTC of `zone` at `epochMs` (negative west of it: -180 in São Paulo). */
export function offsetMinutes(zone: string, epochMs: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(epochMs).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** "UTC−03:00" (a true minus sign), as the zone's name is followed on screen. */
export function offsetLabel(zone: string, epochMs: number): string {
  const minutes = offsetMinutes(zone, epochMs);
  const abs = Math.abs(minutes);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `UTC${minutes < 0 ? '\u2212' : '+'}${hhmm}`;
}

/** "YYYY-MM-DDTHH:MM" in `zone`, as a datetime-local input holds it. */
export function zoneLocalInput(epochMs: number, zone: string): string {
  return new Date(epochMs + offsetMinutes(zone, epochMs) * 60_000).toISOString().slice(0, 16);
}

/** The instant a datetime-local value means in `zone` (the offset found at the guess, then checked). */
export function fromZoneLocalInput(value: string, zone: string): number {
  const wall = Date.parse(`${value.length === 16 ? `${value}:00` : value}Z`);
  const first = wall - offsetMinutes(zone, wall) * 60_000;
  return wall - offsetMinutes(zone, first) * 60_000;
}
