import { describe, expect, it } from 'vitest';
import { decodeTcpPacket } from '../../../src/gateway/teltonika/decode.js';
import type { AvlRecord, IoValue } from '../../../src/gateway/teltonika/avl-record.js';
import { teltonikaAccuracy, toIncomingRecords, toIncomingValues } from '../../../src/gateway/teltonika/to-incoming-records.js';
import { checkIncomingRecord } from '../../../src/domain/telemetry-record.js';
import { TRACCAR } from './traccar-vectors.js';
import { bytes } from './wiki-vectors.js';

const VIN = 'WDB1234561A123456';
const record = (io: [number, IoValue][], fields: Partial<AvlRecord> = {}): AvlRecord => ({
  timestampMs: 1_700_000_000_000, priority: 0, longitude: -46.6333, latitude: -23.5505, altitude: 760,
  angle: 90, satellites: 9, speed: 42, eventIoId: 0, io: new Map(io), ...fields,
});

describe('Teltonika records as datapoints (D11)', () => {
  it('when a record has a fix and FMB IO values, then position, motion and converted units come out', () => {
    const { ts, values } = toIncomingValues(record([[16, 123_456], [66, 12_850], [89, 57], [85, 2100], [115, 905]]), undefined);
    expect(ts).toBe(1_700_000_000_000);
    expect(values).toEqual({
      latitude: -23.5505, longitude: -46.6333, speed: 42, heading: 90,
      odometer: 123.456, lv_battery_voltage: 12.85, fuel_level: 57, rpm: 2100, engine_cooling_temperature: 90.5,
    });
  });

  it('when the CAN ids are missing, then the OBD and CAN-mileage fallbacks are used, read signed where the id is', () => {
    const { values } = toIncomingValues(record([[87, 5_000], [48, 12], [36, 800], [32, 0xf6]]), undefined);
    expect(values).toMatchObject({ odometer: 5, fuel_level: 12, rpm: 800, engine_cooling_temperature: -10 });
    expect(toIncomingValues(record([[115, 0xff9c]]), undefined).values.engine_cooling_temperature).toBe(-10);
  });

  it('when a record has no fix, then position, speed and heading are null and IO values stay', () => {
    const { values } = toIncomingValues(record([[66, 24_079]], { satellites: 0, speed: 0, angle: 0 }), undefined);
    expect(values).toEqual({ latitude: null, longitude: null, speed: null, heading: null, lv_battery_voltage: 24.079 });
  });

  it('when ignition changes from the previous known state, then an ignition event is set and the new state returned', () => {
    expect(toIncomingValues(record([[239, 1]]), false)).toMatchObject({ values: { event: 'ignition on' }, ignition: true });
    expect(toIncomingValues(record([[239, 0]]), true)).toMatchObject({ values: { event: 'ignition off' }, ignition: false });
  });

  it('when ignition is unchanged, unknown before, or absent, then no event is set', () => {
    expect(toIncomingValues(record([[239, 1]]), true).values).not.toHaveProperty('event');
    expect(toIncomingValues(record([[239, 1]]), undefined)).toMatchObject({ ignition: true });
    expect(toIncomingValues(record([[239, 1]]), undefined).values).not.toHaveProperty('event');
    expect(toIncomingValues(record([]), true)).toMatchObject({ ignition: true });
    expect(toIncomingValues(record([]), true).values).not.toHaveProperty('event');
  });

  it('when the device says IO 239 triggered the record, then the event is set even without a known previous state', () => {
    expect(toIncomingValues(record([[239, 0]], { eventIoId: 239 }), undefined).values.event).toBe('ignition off');
  });

  it('when IO values are bigints, NX bytes or unknown ids, then they do not break the mapping', () => {
    const { values } = toIncomingValues(record([[16, 42_000n], [66, 2n ** 60n], [89, Buffer.from([1])], [9999, 7], [78, 2n ** 63n]]), undefined);
    expect(values).toEqual({ latitude: -23.5505, longitude: -46.6333, speed: 42, heading: 90, odometer: 42 });
  });

  it('when values are out of a datapoint’s range, then they pass through and the intake flags them', () => {
    const { values } = toIncomingValues(record([[89, 250]]), undefined);
    expect(values.fuel_level).toBe(250);
    const checked = checkIncomingRecord({ vin: VIN, ts: 1_700_000_000_000, values }, 1_700_000_000_000, 0);
    expect(checked.ok && checked.record.flag).toEqual({ fuel_level: { value: 250, flag: 'out of range' } });
  });

  it('when a packet holds records newest-first, then they come out oldest-first with ignition threaded through', () => {
    const records = [
      record([[239, 0]], { timestampMs: 3_000 }),
      record([[239, 1]], { timestampMs: 2_000 }),
      record([[239, 1]], { timestampMs: 1_000 }),
    ];
    const out = toIncomingRecords(VIN, records, false);
    expect(out.records.map((r) => [r.vin, r.ts, r.values.event])).toEqual([[VIN, 1_000, 'ignition on'], [VIN, 2_000, undefined], [VIN, 3_000, 'ignition off']]);
    expect(out.ignition).toBe(false);
  });

  it('when a real packet is mapped, then the intake accepts every record', () => {
    const decoded = decodeTcpPacket(bytes(TRACCAR.codec8MixedOrder));
    if (!decoded.ok || decoded.kind !== 'avl') throw new Error('not AVL');
    const { records } = toIncomingRecords(VIN, decoded.records, undefined);
    expect(records.map((r) => r.ts)).toEqual([...records.map((r) => r.ts)].sort((a, b) => a - b));
    for (const r of records) {
      const checked = checkIncomingRecord(r, r.ts, 0);
      expect(checked.ok && checked.record.flag).toBeNull();
    }
    expect(records[0]!.values).toMatchObject({ latitude: 55.9510533, longitude: 23.2913183, speed: 8, lv_battery_voltage: 14.017 });
    // The newest record (first on the wire) has no fix.
    expect(records[2]!.values).toMatchObject({ latitude: null, longitude: null, lv_battery_voltage: 12.8 });
  });
});

describe('Teltonika position accuracy', () => {
  it('when a record carries GNSS HDOP (IO 182, tenths), then the accuracy is HDOP × 5 m, whatever the satellite count', () => {
    expect(teltonikaAccuracy(record([[182, 12]]))).toBe(6);
    expect(teltonikaAccuracy(record([[182, 25]], { satellites: 4 }))).toBe(12.5);
    expect(teltonikaAccuracy(record([[182, 500]], { satellites: 12 }))).toBe(250);
  });

  it('when there is no HDOP, or it is 0 or not a fixed-width number, then the satellite count gives 10, 25 or 100 m', () => {
    expect([9, 7, 6, 4, 3, 1].map((satellites) => teltonikaAccuracy(record([], { satellites })))).toEqual([10, 10, 25, 25, 100, 100]);
    expect(teltonikaAccuracy(record([[182, 0]], { satellites: 5 }))).toBe(25);
    expect(teltonikaAccuracy(record([[182, Buffer.from([0, 12])]], { satellites: 9 }))).toBe(10);
    expect(teltonikaAccuracy(record([[182, 14n]]))).toBe(7);
  });

  it('when a record has no fix (0 satellites), then there is no accuracy, even with an HDOP', () => {
    expect(teltonikaAccuracy(record([[182, 9]], { satellites: 0 }))).toBeNull();
  });

  it('when a packet is mapped, then each record carries its own accuracy, and the intake keeps it beside a position only', () => {
    const records = [
      record([[182, 8]], { timestampMs: 1_000 }),
      record([], { timestampMs: 2_000, satellites: 5 }),
      record([[182, 8]], { timestampMs: 3_000, satellites: 0 }),
    ];
    const out = toIncomingRecords(VIN, records, undefined).records;
    expect(out.map((r) => [r.ts, r.positionAccuracyM])).toEqual([[1_000, 4], [2_000, 25], [3_000, null]]);
    const kept = out.map((r) => checkIncomingRecord(r, r.ts, 0)).map((c) => c.ok && c.record.positionAccuracyM);
    expect(kept).toEqual([4, 25, undefined]);
  });
});
