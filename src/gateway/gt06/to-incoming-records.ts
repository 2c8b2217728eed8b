/**
 * D11: what GT06 locations and alarms mean as vehicle datapoints. Coordinates, speed and heading
 * only with a fix (course/status bit 12) and a date: without one the device repeats its last
 * position or sends zeros, which would read as a vehicle standing somewhere it is not. Ignition
 * comes from the ACC byte (0x22) or the status bits; a change of it, or an ACC alarm, is the
 * `event` `ignition on`/`ignition off` as Teltonika's is; other alarms are `alarm <kind>`.
 */
import { accuracyFromSatellites } from '../../domain/position-accuracy.js';
import type { IncomingRecord } from '../../domain/telemetry-record.js';
import type { AlarmMessage, Location } from './messages.js';

type DatapointValues = Record<string, number | string | null>;

/** ACC alarms say what the ignition did; the rest are named as the alarm table names them. */
function alarmEvent(message: AlarmMessage): { event: string | undefined; ignition: boolean | undefined } {
  if (message.alarm.kind === 'acc_on') return { event: 'ignition on', ignition: true };
  if (message.alarm.kind === 'acc_off') return { event: 'ignition off', ignition: false };
  if (message.alarm.kind === 'none') return { event: undefined, ignition: message.terminal.acc };
  return { event: `alarm ${message.alarm.kind}`, ignition: message.terminal.acc };
}

/**
 * One message's record, given the ignition state known before it (undefined when none is), and
 * the state after it. `receivedAt` dates a message whose date fields are not a date.
 */
export function toIncomingRecord(vin: string, message: Location | AlarmMessage, previousIgnition: boolean | undefined, receivedAt: number): { record: IncomingRecord; ignition: boolean | undefined } {
  const { gps } = message;
  const fixed = gps.fixed && gps.timeMs !== undefined;
  const values: DatapointValues = {
    latitude: fixed ? gps.latitude : null,
    longitude: fixed ? gps.longitude : null,
    speed: fixed ? gps.speedKmh : null,
    heading: fixed ? gps.course : null,
  };
  let ignition: boolean | undefined;
  if (message.kind === 'location') {
    ignition = message.acc;
    // The model's mileage counter, in metres as Concox counts it.
    if (message.mileage !== undefined) values.odometer = message.mileage / 1000;
    if (ignition !== undefined && previousIgnition !== undefined && ignition !== previousIgnition) values.event = ignition ? 'ignition on' : 'ignition off';
  } else {
    const alarm = alarmEvent(message);
    ignition = alarm.ignition;
    if (alarm.event !== undefined) values.event = alarm.event;
  }
  const accuracy = fixed ? accuracyFromSatellites(gps.satellites) : null;
  return {
    record: { vin, ts: gps.timeMs ?? receivedAt, values, positionAccuracyM: accuracy },
    ignition: ignition ?? previousIgnition,
  };
}
