import { describe, expect, it } from 'vitest';
import { decodeFrame } from '../../../src/gateway/gt06/decode.js';
import { wrapFrame } from '../../../src/gateway/gt06/frame-envelope.js';
import { readDateTime } from '../../../src/gateway/gt06/gps-block.js';
import { CONCOX } from './concox-vectors.js';
import { decode, message } from './frames.js';
import { TRACCAR } from './traccar-vectors.js';

const at = (iso: string) => Date.parse(`${iso}Z`);
/** Coordinates to 5 decimals (about a metre), the precision Traccar's own assertion uses. */
const place = (gps: { latitude: number; longitude: number }) => [Number(gps.latitude.toFixed(5)), Number(gps.longitude.toFixed(5))];
const hex = (b: Buffer) => b.toString('hex');

describe('GT06 login (0x01)', () => {
  it('when the 8-byte terminal id login arrives, then the IMEI is its BCD digits without the leading 0', () => {
    expect(message(TRACCAR.loginShort, 'login')).toEqual({ ok: true, kind: 'login', imei: '864717003283581' });
    expect(message(TRACCAR.loginShort2, 'login').imei).toBe('123456789012345');
    expect(message(TRACCAR.frameLogin, 'login').imei).toBe('352887071911998');
  });

  it('when the longer login arrives, then the type id, time zone and language are read too', () => {
    expect(message(TRACCAR.loginLong, 'login')).toEqual({ ok: true, kind: 'login', imei: '863586038760942', typeId: 0xa001, timezoneMinutes: 0, language: 0 });
    expect(message(CONCOX.loginLong, 'login')).toEqual({ ok: true, kind: 'login', imei: '752533678900242', typeId: 0x7000, timezoneMinutes: 480, language: 1 });
  });

  it('when the time zone field has the west bit, then the offset is negative (0x190A: GMT-4:00)', () => {
    expect(message(TRACCAR.loginLongWest, 'login')).toMatchObject({ imei: '864717003664467', typeId: 0x100f, timezoneMinutes: -240, language: 2 });
  });

  it('when the terminal id is not BCD or is cut short, then the login is malformed', () => {
    expect(decodeFrame({ protocol: 0x01, content: Buffer.from('08647170032835a1', 'hex') })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(decodeFrame({ protocol: 0x01, content: Buffer.from('0864717003', 'hex') })).toMatchObject({ ok: false, reason: 'malformed' });
  });
});

describe('GT06 heartbeat (0x13)', () => {
  it('when a heartbeat arrives, then terminal information, voltage level, GSM signal, alarm and language are read', () => {
    expect(message(TRACCAR.heartbeat, 'status')).toEqual({
      ok: true, kind: 'status',
      terminal: { raw: 0xc4, powerCut: true, gpsTracking: true, alarm: 'none', charging: true, acc: false, armed: false },
      voltageLevel: 6, gsmSignal: 4, alarm: { code: 0, kind: 'none' }, language: 2,
    });
    expect(message(CONCOX.heartbeat, 'status')).toMatchObject({ terminal: { raw: 0x40, gpsTracking: true, powerCut: false }, voltageLevel: 4, gsmSignal: 4, language: 1 });
    expect(message(TRACCAR.heartbeat2, 'status').terminal).toMatchObject({ powerCut: false, gpsTracking: true, charging: true });
  });

  it('when a clone’s heartbeat has another length, then it stays raw rather than misread', () => {
    expect(message(TRACCAR.heartbeatVariant, 'other')).toMatchObject({ protocol: 0x13 });
  });
});

describe('GT06 locations (0x10, 0x12, 0x22)', () => {
  it('when the Lithuanian 0x12 of Traccar’s test arrives, then time, fix and place are the ones Traccar asserts', () => {
    const location = message(TRACCAR.gpsLbsLithuania, 'location');
    expect(location.gps).toMatchObject({ timeMs: at('2015-10-20T14:21:11'), fixed: true, satellites: 5, speedKmh: 0, course: 0 });
    expect(place(location.gps)).toEqual([54.94535, 24.01762]);
    expect(location.cell).toEqual({ mcc: 246, mnc: 1, lac: 110, cellId: 0x55da });
    // Course/status 0x5400: bit 14 says ACC is known, bit 15 that it is off.
    expect(location.acc).toBe(false);
  });

  it('when a 0x12 comes from Maranhão, then south and west are negative, the MCC is Brazil’s and the variant’s bytes stay raw', () => {
    const location = message(TRACCAR.gpsLbsBrazil, 'location');
    expect(location.gps).toMatchObject({ timeMs: at('2022-04-14T16:44:34'), fixed: true, satellites: 15, course: 346 });
    expect(place(location.gps)).toEqual([-5.29294, -44.49186]);
    expect(location.cell).toEqual({ mcc: 724, mnc: 2, lac: 0x283b, cellId: 0x753f });
    expect(location.acc).toBeUndefined();
    expect(hex(location.extra)).toBe('4005710400');
  });

  it('when a 0x12 comes from a vehicle moving with ACC on, then speed, course and ACC are read', () => {
    const location = message(TRACCAR.gpsLbsIndiaMoving, 'location');
    expect(location.gps).toMatchObject({ timeMs: at('2017-06-22T09:24:53'), speedKmh: 61, course: 197, fixed: true });
    expect(place(location.gps)).toEqual([21.39836, 72.96277]);
    expect(location).toMatchObject({ acc: true, cell: { mcc: 404, mnc: 5 } });
  });

  it('when a 0x10 arrives, then its GPS block is read, with no cell, and the 2 reserved bytes stay raw', () => {
    const location = message(TRACCAR.gpsOnly, 'location');
    expect(location).toMatchObject({ protocol: 0x10, cell: undefined });
    expect(location.gps).toMatchObject({ timeMs: at('2011-03-26T11:27:49'), satellites: 12, speedKmh: 1, course: 289, fixed: true });
    expect(place(location.gps)).toEqual([23.11168, 114.40921]);
    expect(hex(location.extra)).toBe('0001');
    expect(place(message(TRACCAR.gpsOnlyArgentina, 'location').gps)).toEqual([-34.30438, -58.97528]);
  });

  it('when the Concox 0x22 example arrives, then ACC, upload mode and re-upload are read: it is history', () => {
    const location = message(CONCOX.gpsLbsUtc, 'location');
    expect(location.gps).toMatchObject({ timeMs: at('2015-12-29T02:51:05'), satellites: 9, fixed: true, course: 0 });
    expect(place(location.gps)).toEqual([23.11169, 114.4093]);
    expect(location).toMatchObject({ protocol: 0x22, cell: { mcc: 460, mnc: 0, lac: 0x287d, cellId: 0x1f71 }, acc: false, uploadMode: 0, historic: true, mileage: undefined });
  });

  it('when a 0x22 comes from Minas Gerais, then the ACC byte and the course/status bits agree that ACC is on', () => {
    const location = message(TRACCAR.gpsLbsUtcBrazil, 'location');
    expect(location.gps).toMatchObject({ timeMs: at('2014-09-20T22:15:07'), course: 184, fixed: true });
    expect(place(location.gps)).toEqual([-19.59568, -46.93255]);
    expect(location).toMatchObject({ cell: { mcc: 724, mnc: 2, lac: 0xc30e, cellId: 0xa98a }, acc: true, uploadMode: 5, historic: true });
  });

  it('when a location has no GPS fix, then it is flagged not fixed, though it carries coordinates', () => {
    const location = message(TRACCAR.gpsLbsUtcNoFix, 'location');
    expect(location.gps.fixed).toBe(false);
    expect(place(location.gps)).toEqual([23.01064, 72.5072]);
    expect(location).toMatchObject({ acc: true, uploadMode: 3, historic: true });
  });

  it('when the MCC field has bit 15 set, then the MNC is 2 bytes (310/260) and the rest still lines up', () => {
    const location = message(TRACCAR.gpsLbsUtcWideMnc, 'location');
    expect(location.cell).toEqual({ mcc: 310, mnc: 260, lac: 0xcb8a, cellId: 0xbef3 });
    expect(location.gps).toMatchObject({ fixed: false, satellites: 0, latitude: 0, longitude: 0 });
    expect(location).toMatchObject({ acc: false, historic: false, extra: Buffer.alloc(0) });
  });

  it('when the cell fields are zeros, then there is no cell', () => {
    const location = message(TRACCAR.frameGpsLbsSpain, 'location');
    expect(location.cell).toBeUndefined();
    expect(place(location.gps)).toEqual([41.61491, 2.26641]);
  });

  it('when the date fields are no calendar date, then there is no time; 29 February of a leap year is one', () => {
    expect(readDateTime(Buffer.from([16, 2, 29, 23, 59, 59]), 0)).toBe(at('2016-02-29T23:59:59'));
    expect(readDateTime(Buffer.from([17, 2, 29, 0, 0, 0]), 0)).toBeUndefined();
    expect(readDateTime(Buffer.from([15, 4, 31, 0, 0, 0]), 0)).toBeUndefined();
    expect(readDateTime(Buffer.from([15, 13, 1, 0, 0, 0]), 0)).toBeUndefined();
    expect(readDateTime(Buffer.from([15, 12, 31, 24, 0, 0]), 0)).toBeUndefined();
  });

  it('when a location is shorter than its GPS block, then it is malformed', () => {
    expect(decodeFrame({ protocol: 0x12, content: Buffer.alloc(17) })).toMatchObject({ ok: false, reason: 'malformed' });
  });
});

describe('GT06 alarms (0x16, 0x26, 0x27)', () => {
  it('when a vibration alarm arrives, then its position, cell, terminal bits and named alarm are read', () => {
    const alarm = message(TRACCAR.alarmVibration, 'alarm');
    expect(alarm.gps).toMatchObject({ timeMs: at('2015-12-29T10:43:33'), fixed: true, course: 111, satellites: 8 });
    expect(alarm).toMatchObject({
      protocol: 0x16, cell: { mcc: 460, mnc: 0, lac: 0x287d, cellId: 0x1f71 }, voltageLevel: 4, gsmSignal: 4,
      alarm: { code: 3, kind: 'vibration' }, language: 1, terminal: { alarm: 'vibration', gpsTracking: true }, fence: undefined,
    });
  });

  it('when a power cut alarm comes from Belo Horizonte, then it is named, south-west, and differential', () => {
    const alarm = message(TRACCAR.alarmPowerCutBrazil, 'alarm');
    expect(place(alarm.gps)).toEqual([-19.99159, -43.90412]);
    expect(alarm.gps).toMatchObject({ timeMs: at('2016-05-27T15:28:52'), speedKmh: 7, differential: true, fixed: true });
    expect(alarm).toMatchObject({ alarm: { code: 2, kind: 'power_cut' }, terminal: { alarm: 'power_cut' }, cell: { mcc: 724, lac: 0x2bdf } });
  });

  it('when an overspeed alarm arrives, then it is named and the speed is the one that set it off', () => {
    const alarm = message(TRACCAR.alarmOverspeed, 'alarm');
    expect(alarm).toMatchObject({ alarm: { code: 6, kind: 'overspeed' }, gps: { speedKmh: 88 }, terminal: { acc: true, charging: true } });
  });

  it('when only the terminal bits carry the alarm (Traccar: removing), then the bits are named and the alarm byte is none', () => {
    const alarm = message(TRACCAR.alarmRemoved, 'alarm');
    expect(alarm).toMatchObject({ alarm: { code: 0, kind: 'none' }, terminal: { raw: 0x7c, alarm: 'cover_removed' }, voltageLevel: 85 });
  });

  it('when 0x26 alarms arrive, then they decode as 0x16 does (the Concox example: tamper, relay cut, no fix)', () => {
    expect(message(TRACCAR.alarmUtcVibration, 'alarm')).toMatchObject({ protocol: 0x26, alarm: { kind: 'vibration' }, gps: { fixed: false, timeMs: at('2018-03-12T06:56:22') } });
    const concox = message(CONCOX.alarmUtc, 'alarm');
    expect(concox).toMatchObject({ alarm: { code: 0x13, kind: 'tamper' }, terminal: { powerCut: true }, gps: { fixed: false }, language: 2, extra: Buffer.alloc(0) });
  });

  it('when 0x27 alarms arrive, then the cell’s length byte covers a 2-byte MNC and 0xFF is no fence', () => {
    const alarm = message(TRACCAR.alarmFencesUs, 'alarm');
    expect(place(alarm.gps)).toEqual([40.1962, -74.14239]);
    expect(alarm).toMatchObject({ protocol: 0x27, cell: { mcc: 310, mnc: 260, lac: 0xcb8a, cellId: 0xbef3 }, alarm: { code: 0x0c, kind: 'power_on' }, fence: undefined });
    expect(message(CONCOX.alarmFences, 'alarm')).toMatchObject({ alarm: { kind: 'power_on' }, terminal: { powerCut: true }, fence: undefined, gps: { course: 311, fixed: false } });
  });

  it('when a 0x27 names a fence, then its number is read', () => {
    const content = Buffer.from(CONCOX.alarmFences, 'hex').subarray(4, -6);
    content[content.length - 1] = 2;
    expect(decodeFrame({ protocol: 0x27, content })).toMatchObject({ kind: 'alarm', fence: 2 });
  });

  it('when an alarm comes before the first fix, then its all-zero date is no time and the alarm still reads', () => {
    const alarm = message(TRACCAR.frameAlarmNoDate, 'alarm');
    expect(alarm.gps).toMatchObject({ timeMs: undefined, fixed: false, latitude: 0, longitude: 0 });
    expect(alarm).toMatchObject({ alarm: { kind: 'vibration' }, cell: { mcc: 250 } });
  });

  it('when an alarm is cut short of its status bytes, then it is malformed', () => {
    const content = Buffer.from(TRACCAR.alarmVibration, 'hex').subarray(4, -10);
    expect(decodeFrame({ protocol: 0x16, content })).toMatchObject({ ok: false, reason: 'malformed' });
  });
});

describe('GT06 time requests, command answers and the rest', () => {
  it('when a time request arrives, then it is one', () => {
    expect(message(TRACCAR.timeRequest, 'time-request')).toEqual({ ok: true, kind: 'time-request' });
  });

  it('when 0x15 answers arrive, then their server flag and text are read', () => {
    expect(message(TRACCAR.answerCutOff, 'command-answer')).toEqual({ ok: true, kind: 'command-answer', serverFlag: 0, text: 'Cut off the fuel supply: Success!' });
    expect(message(TRACCAR.answerRestore, 'command-answer').text).toBe('Restore fuel supply: Success!');
    expect(message(TRACCAR.answerIccid, 'command-answer').text).toBe('<ICCID:89882390000097302650>');
  });

  it('when a 0x15 has command length 0 and NUL padding, then the whole text is still read', () => {
    expect(message(TRACCAR.answerAlready, 'command-answer').text).toBe('Already in the state of fuel supply to resume,the command is not running!');
  });

  it('when 0x21 answers arrive, then UTF-16BE and ASCII texts are read', () => {
    expect(message(TRACCAR.answerLongUtf16, 'command-answer')).toEqual({ ok: true, kind: 'command-answer', serverFlag: 0, text: 'Command error!' });
    expect(message(TRACCAR.answerLongAscii, 'command-answer').text).toBe('Current position!Lat:N54.739332,Lon:E25.273270,Course:126.53,Speed:0.0000,DateTime:2017-05-26  10:27:47');
  });

  it('when a protocol is not decoded here, then it comes out as other with its content', () => {
    expect(message(TRACCAR.information, 'other')).toMatchObject({ protocol: 0x9b, content: Buffer.from('030235393030423438434542384103', 'hex') });
    expect(decode(wrapFrame(0x28, Buffer.from([1, 2, 3]), 7))).toMatchObject({ ok: true, kind: 'other', protocol: 0x28 });
  });

  it('when an answer is too short for its server flag, then it is malformed', () => {
    expect(decodeFrame({ protocol: 0x15, content: Buffer.from([4, 0, 0, 0]) })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(decodeFrame({ protocol: 0x21, content: Buffer.from([0, 0, 0, 0]) })).toMatchObject({ ok: false, reason: 'malformed' });
  });
});
