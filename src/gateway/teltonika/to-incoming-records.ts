/**
 * D11: what a Teltonika record means as vehicle datapoints. Units are converted here; ranges
 * are not checked, because the intake (D8) keeps an out-of-range value as null with a flag that
 * shows the original, which says more than dropping it would. IO ids follow the FMB/FMC
 * "basic/advanced" families (research note §4); unknown ids are ignored.
 */
import { accuracyFromHdop, accuracyFromSatellites } from '../../domain/position-accuracy.js';
import type { IncomingRecord } from '../../domain/telemetry-record.js';
import type { AvlRecord, IoValue } from './avl-record.js';

export type DatapointValues = Record<string, number | string | null>;

const IO = {
  gsmOdometer: 16, canMileage: 87, externalVoltage: 66, canFuelPercent: 89, obdFuelPercent: 48,
  canRpm: 85, obdRpm: 36, canEngineTemp: 115, obdCoolant: 32, ignition: 239, hdop: 182,
} as const;

/** A fixed-width IO value as a number; NX bytes, or a bigint no double can hold, are not one. */
function numeric(value: IoValue | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint' && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  return undefined;
}

/** Two's complement over the id's documented width; the wire carries every value unsigned. */
const signed = (value: number, bits: 8 | 16): number => {
  const low = value % 2 ** bits;
  return low >= 2 ** (bits - 1) ? low - 2 ** bits : low;
};

function firstOf(io: ReadonlyMap<number, IoValue>, ...ids: number[]): { id: number; value: number } | undefined {
  for (const id of ids) {
    const value = numeric(io.get(id));
    if (value !== undefined) return { id, value };
  }
  return undefined;
}

function ioValues(io: ReadonlyMap<number, IoValue>): DatapointValues {
  const values: DatapointValues = {};
  const odometer = firstOf(io, IO.gsmOdometer, IO.canMileage);
  if (odometer) values.odometer = odometer.value / 1000;
  const voltage = firstOf(io, IO.externalVoltage);
  if (voltage) values.lv_battery_voltage = voltage.value / 1000;
  const fuel = firstOf(io, IO.canFuelPercent, IO.obdFuelPercent);
  if (fuel) values.fuel_level = fuel.value;
  const rpm = firstOf(io, IO.canRpm, IO.obdRpm);
  if (rpm) values.rpm = rpm.value;
  const temperature = firstOf(io, IO.canEngineTemp, IO.obdCoolant);
  if (temperature) {
    values.engine_cooling_temperature = temperature.id === IO.canEngineTemp ? signed(temperature.value, 16) / 10 : signed(temperature.value, 8);
  }
  return values;
}

/**
 * The fix's estimated horizontal accuracy, metres (domain/position-accuracy.ts): from GNSS HDOP
 * (IO 182, in tenths) when the record carries a non-zero one, else from the satellite count;
 * null without a fix (0 satellites), whatever the IO says.
 */
export function teltonikaAccuracy(record: AvlRecord): number | null {
  if (record.satellites <= 0) return null;
  const hdop = numeric(record.io.get(IO.hdop));
  return (hdop === undefined ? null : accuracyFromHdop(hdop / 10)) ?? accuracyFromSatellites(record.satellites);
}

/**
 * One record's datapoints, given the ignition state known before it (undefined when none is).
 * An `event` is set when IO 239 differs from that state, or when the device says IO 239
 * triggered the record (it saw a change the previous state may not show, e.g. after a gap).
 * Returns the ignition state after the record for the next one.
 */
export function toIncomingValues(record: AvlRecord, previousIgnition: boolean | undefined): { ts: number; values: DatapointValues; ignition: boolean | undefined } {
  // No fix: the device repeats the last position with angle and speed 0 (research §2.2), which
  // would read as standing still at a stale place.
  const fixed = record.satellites > 0;
  const values: DatapointValues = {
    latitude: fixed ? record.latitude : null,
    longitude: fixed ? record.longitude : null,
    speed: fixed ? record.speed : null,
    heading: fixed ? record.angle : null,
    ...ioValues(record.io),
  };
  const raw = numeric(record.io.get(IO.ignition));
  const ignition = raw === undefined ? undefined : raw !== 0;
  if (ignition !== undefined && ((previousIgnition !== undefined && ignition !== previousIgnition) || record.eventIoId === IO.ignition)) {
    values.event = ignition ? 'ignition on' : 'ignition off';
  }
  return { ts: record.timestampMs, values, ignition: ignition ?? previousIgnition };
}

/**
 * A packet's records for the intake, oldest first: devices send buffered history newest-first,
 * oldest-first or mixed (research §8.3), and an ignition change only means something in time
 * order. `previousIgnition` is the state after the vehicle's last processed record; the returned
 * `ignition` is the state to keep for the next packet.
 */
export function toIncomingRecords(vin: string, records: readonly AvlRecord[], previousIgnition: boolean | undefined): { records: IncomingRecord[]; ignition: boolean | undefined } {
  let ignition = previousIgnition;
  const out: IncomingRecord[] = [];
  for (const record of [...records].sort((a, b) => a.timestampMs - b.timestampMs)) {
    const mapped = toIncomingValues(record, ignition);
    ignition = mapped.ignition;
    out.push({ vin, ts: mapped.ts, values: mapped.values, positionAccuracyM: teltonikaAccuracy(record) });
  }
  return { records: out, ignition };
}
