/**
 * The OsmAnd decoder against the requests of Traccar's own decoder test
 * (traccar/traccar src/test/java/org/traccar/protocol/OsmAndProtocolDecoderTest.java) and of
 * traccar/traccar-client issue #85 (the same phone in the 7.9 query form and the 9.5.3 JSON form),
 * then malformed input, then random input that must never throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkIncomingRecord } from '../../../src/domain/telemetry-record.js';
import {
  decodeOsmandJson, decodeOsmandQuery, MAX_OSMAND_LOCATIONS, parseOsmandTimestamp, type OsmandDecode,
} from '../../../src/gateway/osmand/decode.js';

const RECEIVED = Date.UTC(2026, 10, 20, 12, 0, 0);

/** A request target as Traccar's test sends it, decoded as the HTTP layer would: its query. */
const query = (target: string): OsmandDecode => decodeOsmandQuery(new URL(target, 'http://gateway.test').searchParams, RECEIVED);
const json = (body: string): OsmandDecode => decodeOsmandJson(JSON.parse(body), RECEIVED);

function accepted(result: OsmandDecode) {
  if (!result.ok) throw new Error(`expected ok, got 400: ${result.reason}`);
  return result;
}
function only(result: OsmandDecode) {
  const { deviceId, records } = accepted(result);
  expect(records).toHaveLength(1);
  return { deviceId, ts: records[0]!.ts, values: records[0]!.values };
}
const rejected = (result: OsmandDecode): string => {
  if (result.ok) throw new Error(`expected 400, got ${JSON.stringify(result)}`);
  expect(result.status).toBe(400);
  return result.reason;
};

describe('OsmAnd query form: Traccar samples', () => {
  it('when a request carries cell and wifi but no position, then the record has its id and instant and no values', () => {
    const r = only(query('/?id=123456&timestamp=1377177267&cell=257,02,16,2224&cell=257,02,16,2223,-90&wifi=00-14-22-01-23-45,-80&wifi=00-1C-B3-09-85-15,-70'));
    expect(r).toEqual({ deviceId: '123456', ts: 1_377_177_267_000, values: {} });
  });

  it('when the id is missing, then the request is a 400 (Traccar: verifyNull)', () => {
    expect(rejected(query('/?timestamp=1377177267&lat=60.0&lon=30.0'))).toBe('id or deviceid is required');
  });

  it('when the timestamp is ISO 8601 with Z, then it is that instant and speed 0.0 knots is 0 km/h', () => {
    const r = only(query('/?id=902064&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z&hdop=6.0&altitude=224.0&speed=0.0'));
    expect(r).toEqual({ deviceId: '902064', ts: Date.UTC(2016, 0, 27, 18, 55, 47), values: { latitude: 42.06288, longitude: -88.23412, speed: 0 } });
  });

  it('when the timestamp is 2^31 or more, then it is milliseconds', () => {
    const r = only(query('/?id=902064&lat=42.06288&lon=-88.23412&timestamp=1442068686579&hdop=6.0&altitude=224.0&speed=0.0'));
    expect(r.ts).toBe(1_442_068_686_579);
  });

  it('when the timestamp is a zone-less yyyy-MM-dd HH:mm:ss (+ for the space), then it is read at -03:00', () => {
    const r = only(query('/?lat=49.60688&lon=6.15788&timestamp=2014-06-04+09%3A10%3A11&altitude=384.7&speed=0.0&id=353861053849681'));
    expect(r).toEqual({ deviceId: '353861053849681', ts: Date.UTC(2014, 5, 4, 12, 10, 11), values: { latitude: 49.60688, longitude: 6.15788, speed: 0 } });
  });

  it('when bearing is sent, then it is the heading; altitude and hdop are dropped', () => {
    const r = only(query('/?id=123456&timestamp=1377177267&lat=60.0&lon=30.0&speed=0.0&bearing=0.0&altitude=0&hdop=0.0'));
    expect(r.values).toEqual({ latitude: 60, longitude: 30, speed: 0, heading: 0 });
  });

  it('when only id, timestamp and position are sent, then those are the record', () => {
    expect(only(query('/?id=123456&timestamp=1377177267&lat=60.0&lon=30.0'))).toEqual({ deviceId: '123456', ts: 1_377_177_267_000, values: { latitude: 60, longitude: 30 } });
  });

  it('when deviceid and heading are sent without a timestamp, then the instant is the receive time', () => {
    const r = only(query('/?lat=60.0&lon=30.0&speed=0.0&heading=0.0&vacc=0&hacc=0&altitude=0&deviceid=123456'));
    expect(r).toEqual({ deviceId: '123456', ts: RECEIVED, values: { latitude: 60, longitude: 30, speed: 0, heading: 0 } });
  });

  it('when batt (the phone battery) is sent, then it is dropped: there is no datapoint for it', () => {
    const r = only(query('/?id=861001000719969&lat=41.666667&lon=-0.883333&altitude=350.059479&speed=0.000000&batt=87'));
    expect(r.values).toEqual({ latitude: 41.666667, longitude: -0.883333, speed: 0 });
  });

  it('when the position is location=lat,lon, then it is split into latitude and longitude', () => {
    expect(only(query('/?id=123456&timestamp=1377177267&location=60.0,30.0')).values).toEqual({ latitude: 60, longitude: 30 });
  });

  it('when speed is 40 knots with rpm and other attributes, then speed is 74.08 km/h and rpm is kept', () => {
    const r = only(query('/?id=123456789012345&timestamp=1504763810&lat=40.7232948571&lon=-74.0061408571&bearing=7.19889788244&speed=40&ignition=true&rpm=933&fuel=24'));
    expect(r).toEqual({
      deviceId: '123456789012345', ts: 1_504_763_810_000,
      values: { latitude: 40.7232948571, longitude: -74.0061408571, heading: 7.19889788244, speed: 74.08, rpm: 933 },
    });
  });

  it('when Traccar Client 7.9 sends ms and a fractional knot speed (traccar-client#85), then speed is km/h to 3 decimals', () => {
    const r = only(query('/?id=82879256&lat=-35.5555277&lon=145.5555733&timestamp=1693222306574&speed=0.211914&bearing=26.21394&accuracy=22.975999'));
    expect(r).toEqual({ deviceId: '82879256', ts: 1_693_222_306_574, values: { latitude: -35.5555277, longitude: 145.5555733, speed: 0.392, heading: 26.21394 } });
  });
});

describe('OsmAnd query form: rules and malformed input', () => {
  it('when the id is empty, has a space or is longer than 64, then the request is a 400', () => {
    for (const id of ['', 'abc+def', 'a%2Fb', 'x'.repeat(65), '%C3%A9']) expect(rejected(query(`/?id=${id}&lat=1&lon=1`))).toMatch(/device id/);
    expect(only(query(`/?id=${'x'.repeat(64)}`)).deviceId).toHaveLength(64);
    expect(only(query('/?id=AB_c-1.2:3')).deviceId).toBe('AB_c-1.2:3');
  });

  it('when the timestamp cannot be read, then the request is a 400', () => {
    for (const t of ['yesterday', '1377177267.5', '-5', '2016-02-30+10:00:00', '2016-01-27T25:00:00Z', '2016-01-27T18:55:47+25:00', '']) {
      expect(rejected(query(`/?id=1&timestamp=${t}`))).toMatch(/timestamp/);
    }
  });

  it('when a number is not a number, then the text goes on as sent for the intake to flag', () => {
    const r = only(query('/?id=1&lat=north&lon=1e999&speed=fast&bearing=&location2=x'));
    expect(r.values).toEqual({ latitude: 'north', longitude: '1e999', speed: 'fast', heading: '' });
    const checked = checkIncomingRecord({ vin: '9BWZZZ377VT100001', ts: RECEIVED, values: r.values }, RECEIVED, 0);
    expect(checked.ok && checked.record.flag).toEqual({
      latitude: { value: 'north', flag: 'invalid type' }, longitude: { value: '1e999', flag: 'invalid type' },
      speed: { value: 'fast', flag: 'invalid type' }, heading: { value: '', flag: 'invalid type' },
    });
  });

  it('when location is not exactly two parts, then both coordinates are the text as sent', () => {
    expect(only(query('/?id=1&location=60.0')).values).toEqual({ latitude: '60.0', longitude: '60.0' });
    expect(only(query('/?id=1&location=1,2,3')).values).toEqual({ latitude: '1,2,3', longitude: '1,2,3' });
  });

  it('when valid=false or the position is 0,0, then latitude and longitude are null (no fix)', () => {
    expect(only(query('/?id=1&lat=60&lon=30&valid=false&speed=2')).values).toEqual({ latitude: null, longitude: null, speed: 3.704 });
    expect(only(query('/?id=1&lat=60&lon=30&valid=0')).values).toEqual({ latitude: null, longitude: null });
    expect(only(query('/?id=1&lat=0&lon=0.0')).values).toEqual({ latitude: null, longitude: null });
    expect(only(query('/?id=1&lat=60&lon=30&valid=TRUE')).values).toEqual({ latitude: 60, longitude: 30 });
    expect(only(query('/?id=1&valid=false')).values).toEqual({});
  });

  it('when odometer is sent in metres, then it is km; when a parameter repeats, then the last one counts', () => {
    expect(only(query('/?id=1&odometer=123456')).values).toEqual({ odometer: 123.456 });
    expect(only(query('/?id=1&id=2&speed=1&speed=10&heading=5&bearing=6'))).toMatchObject({ deviceId: '2', values: { speed: 18.52, heading: 6 } });
  });

  it('when timestamps use Traccar\'s other shapes, then each is the instant it names', () => {
    expect(parseOsmandTimestamp('2147483646')).toBe(2_147_483_646_000);
    expect(parseOsmandTimestamp('2147483647')).toBe(2_147_483_647);
    expect(parseOsmandTimestamp('2016-01-27T15:55:47-03:00')).toBe(Date.UTC(2016, 0, 27, 18, 55, 47));
    expect(parseOsmandTimestamp('2016-01-27T20:55:47+0200')).toBe(Date.UTC(2016, 0, 27, 18, 55, 47));
    expect(parseOsmandTimestamp('2016-01-27T23:55:47+05')).toBe(Date.UTC(2016, 0, 27, 18, 55, 47));
    expect(parseOsmandTimestamp('2016-01-27T18:55:47.1239Z')).toBe(Date.UTC(2016, 0, 27, 18, 55, 47, 123));
    expect(parseOsmandTimestamp('2016-01-27T15:55:47')).toBe(Date.UTC(2016, 0, 27, 18, 55, 47));
    expect(parseOsmandTimestamp('2016-01-27')).toBeUndefined();
  });
});

const TRACCAR_JSON = {
  android: '{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{},"_":"&id=48241179&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241179"}',
  extras: '{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{"device_string_test":"long_device_id","device_bool_test":true,"device_bool_false_test":false,"device_integer_test":1,"device_double_test":1.345,"device_very_long_double_test":1763636.3442},"_":"&id=48241179&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241179"}',
  iosSimulator: '{"location":{"extras":{},"mock":true,"coords":{"speed_accuracy":-1,"speed":-1,"longitude":-122.406417,"ellipsoidal_altitude":0,"floor":null,"heading_accuracy":-1,"latitude":37.785834000000001,"accuracy":5,"altitude_accuracy":-1,"altitude":0,"heading":-1},"is_moving":false,"age":188,"odometer":0,"uuid":"2FB04C65-99CF-42AB-8DD3-EBCB4B108BF8","event":"motionchange","battery":{"level":-1,"is_charging":false},"activity":{"type":"unknown","confidence":100},"timestamp":"2025-05-09T04:11:30.579Z"},"device_id":"658765"}',
  moving: '{"location":{"event":"motionchange","is_moving":false,"uuid":"0e9a2473-a9a7-4c00-997b-fb97d2154e75","timestamp":"2021-07-21T08:06:34.444Z","odometer":0,"coords":{"latitude":-6.1148096,"longitude":106.6837015,"accuracy":3.8,"speed":18.67,"speed_accuracy":0.26,"heading":63,"heading_accuracy":0.28,"altitude":35.7,"altitude_accuracy":3.8},"activity":{"type":"still","confidence":100},"battery":{"is_charging":false,"level":0.79},"extras":{}},"device_id":"8737767034"}',
};

describe('OsmAnd JSON form: Traccar samples', () => {
  it('when Traccar Client 9 sends heading -1, then heading is absent and speed 0 m/s is 0 km/h', () => {
    for (const body of [TRACCAR_JSON.android, TRACCAR_JSON.extras]) {
      expect(only(json(body))).toEqual({
        deviceId: '48241179', ts: Date.UTC(2025, 5, 15, 13, 45, 12, 862), values: { latitude: 37.4219983, longitude: -122.084, speed: 0 },
      });
    }
  });

  it('when the iOS simulator sends speed -1 and heading -1 in another member order, then both are absent', () => {
    expect(only(json(TRACCAR_JSON.iosSimulator))).toEqual({
      deviceId: '658765', ts: Date.UTC(2025, 4, 9, 4, 11, 30, 579), values: { latitude: 37.785834, longitude: -122.406417 },
    });
  });

  it('when speed is 18.67 m/s, then it is 67.212 km/h and heading 63 is kept', () => {
    expect(only(json(TRACCAR_JSON.moving))).toEqual({
      deviceId: '8737767034', ts: Date.UTC(2021, 6, 21, 8, 6, 34, 444), values: { latitude: -6.1148096, longitude: 106.6837015, speed: 67.212, heading: 63 },
    });
  });

  it('when Traccar Client 9.5.3 sends its JSON (traccar-client#85), then speed 0.11 m/s is 0.396 km/h', () => {
    const body = '{"location":{"timestamp":"2025-08-28T11:51:46.587Z","coords":{"latitude":-37.6998277,"longitude":145.0686733,"accuracy":4.32,"speed":0.11,"heading":158.44,"altitude":103},"is_moving":true,"odometer":0,"battery":{"level":0.88,"is_charging":false},"activity":{"type":"still"}},"device_id":"82879256"}';
    expect(only(json(body))).toEqual({
      deviceId: '82879256', ts: Date.UTC(2025, 7, 28, 11, 51, 46, 587), values: { latitude: -37.6998277, longitude: 145.0686733, speed: 0.396, heading: 158.44 },
    });
  });
});

describe('OsmAnd JSON form: rules and malformed input', () => {
  const location = { timestamp: '2025-06-15T13:45:12Z', coords: { latitude: 1, longitude: 2 } };

  it('when the body is not an object, then it is a 400', () => {
    for (const body of [null, [], 'x', 5, true, [location]]) expect(rejected(decodeOsmandJson(body, RECEIVED))).toBe('body must be a JSON object');
  });

  it('when device_id is missing or not an id, then it is a 400; a whole number is read as its digits', () => {
    expect(rejected(decodeOsmandJson({ location }, RECEIVED))).toBe('device_id is required');
    for (const id of [null, {}, [], '', 'a b', 1.5, -3, 'é']) expect(rejected(decodeOsmandJson({ device_id: id, location }, RECEIVED))).toMatch(/device id/);
    expect(only(decodeOsmandJson({ device_id: 48241179, location }, RECEIVED)).deviceId).toBe('48241179');
  });

  it('when location or coords have the wrong shape, then it is a 400', () => {
    const reason = (loc: unknown) => rejected(decodeOsmandJson({ device_id: '1', location: loc }, RECEIVED));
    expect(reason(undefined)).toBe('location is required');
    expect(reason([])).toBe('location is required');
    for (const bad of [null, 5, 'x', [location, 7]]) expect(reason(bad)).toBe('location must be an object');
    expect(reason({ coords: [1, 2] })).toBe('location.coords must be an object');
    expect(reason(new Array(MAX_OSMAND_LOCATIONS + 1).fill(location))).toMatch(/at most/);
  });

  it('when the timestamp is not an instant, then it is a 400; when it is absent, then it is the receive time', () => {
    for (const t of ['nope', '', null, {}, 1.5, '2025-13-01T00:00:00Z']) {
      expect(rejected(decodeOsmandJson({ device_id: '1', location: { ...location, timestamp: t } }, RECEIVED))).toMatch(/timestamp/);
    }
    expect(only(decodeOsmandJson({ device_id: '1', location: { coords: { latitude: 1, longitude: 2 } } }, RECEIVED)).ts).toBe(RECEIVED);
  });

  it('when location is an array (the SDK batch form), then there is one record per location, in order', () => {
    const second = { timestamp: '2025-06-15T13:46:12Z', coords: { latitude: 3, longitude: 4, speed: 10 } };
    const { records } = accepted(decodeOsmandJson({ device_id: '1', location: [location, second] }, RECEIVED));
    expect(records).toEqual([
      { ts: Date.UTC(2025, 5, 15, 13, 45, 12), values: { latitude: 1, longitude: 2 } },
      { ts: Date.UTC(2025, 5, 15, 13, 46, 12), values: { latitude: 3, longitude: 4, speed: 36 } },
    ]);
  });

  it('when values have the wrong type, then they go on as sent; the phone odometer is dropped; 0,0 is no fix', () => {
    const coords = { latitude: 'north', longitude: null, speed: '5', heading: true };
    expect(only(decodeOsmandJson({ device_id: '1', location: { coords, odometer: 1_234_567 } }, RECEIVED)).values)
      .toEqual({ latitude: 'north', longitude: null, speed: '5', heading: true });
    expect(only(decodeOsmandJson({ device_id: '1', location: { coords: { latitude: 0, longitude: 0, speed: -0.5 } } }, RECEIVED)).values)
      .toEqual({ latitude: null, longitude: null });
  });
});

describe('OsmAnd decoder on random input', () => {
  const key = fc.oneof(fc.constantFrom('id', 'deviceid', 'timestamp', 'lat', 'lon', 'location', 'speed', 'bearing', 'heading', 'odometer', 'rpm', 'valid'), fc.string());
  const value = fc.oneof(fc.string(), fc.double().map(String), fc.integer().map(String), fc.constantFrom('2016-01-27T18:55:47Z', '2014-06-04 09:10:11', 'true', '1,2'));

  function wellFormed(result: OsmandDecode): void {
    if (!result.ok) return void expect(typeof result.reason).toBe('string');
    for (const r of result.records) expect(Number.isFinite(r.ts)).toBe(true);
  }

  it('when the parameters are random, then the decoder answers and never throws', () => {
    fc.assert(fc.property(fc.array(fc.tuple(key, value), { maxLength: 12 }), (pairs) => {
      wellFormed(decodeOsmandQuery(new URLSearchParams(pairs), RECEIVED));
    }), { numRuns: 500 });
  });

  it('when the JSON body is random, then the decoder answers and never throws', () => {
    const anything = fc.anything({ maxDepth: 3 });
    const shaped = fc.record({
      device_id: fc.oneof(fc.string(), fc.integer(), anything),
      location: fc.oneof(anything, fc.array(anything, { maxLength: 3 }), fc.record({
        timestamp: fc.oneof(fc.string(), fc.integer(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
        coords: fc.oneof(anything, fc.record({ latitude: anything, longitude: anything, speed: anything, heading: anything })),
        odometer: anything,
      }, { requiredKeys: [] })),
    }, { requiredKeys: [] });
    fc.assert(fc.property(fc.oneof(fc.jsonValue({ maxDepth: 4 }), anything, shaped), (body) => {
      wellFormed(decodeOsmandJson(body, RECEIVED));
    }), { numRuns: 1000 });
  });
});
