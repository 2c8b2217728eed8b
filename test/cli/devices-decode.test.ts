/**
 * `telematics devices decode` as an installer runs it, on packets captured from real devices
 * (Traccar's decoder tests, Teltonika's wiki): the frames, the records as they would be stored,
 * the answers byte for byte, and the problems, printed as OPERATIONS.md fixes them, with no
 * database. Bad input is a one-line error and exit code 1.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TRACCAR as GT06 } from '../gateway/gt06/traccar-vectors.js';
import { WIKI } from '../gateway/teltonika/wiki-vectors.js';
import { BIN } from '../support/service-process.js';

const run = promisify(execFile);
const decode = async (...args: string[]) => JSON.parse((await run(process.execPath, [BIN, 'devices', 'decode', ...args])).stdout) as { frames: Record<string, unknown>[] };
const fails = (...args: string[]) => run(process.execPath, [BIN, 'devices', 'decode', ...args]).then(() => { throw new Error('expected a failure'); }, (e: { code: number; stderr: string }) => e);

describe('telematics devices decode', () => {
  it('when a GT06 stream of login, heartbeat, location, bad CRC, alarm and half a frame is given, then each frame says what is stored and answered', async () => {
    const stream = [GT06.loginShort, GT06.heartbeat, GT06.gpsLbsUtcBrazil, GT06.gpsLbsBadCrc, GT06.alarmVibration, '7878'].join(' ');
    const { frames } = await decode('gt06', stream);
    expect(frames.map((f) => f.kind)).toEqual(['login', 'heartbeat', 'location', 'crc', 'alarm', 'incomplete']);
    expect(frames.map((f) => f.answer)).toEqual(['78780501000955940d0a', '7878051301295d630d0a', null, null, '78780516001c1b280d0a', null]);
    expect(frames[0]!.problems).toEqual(['IMEI 864717003283581: answered only when it is registered; an unknown IMEI is disconnected unanswered']);
    expect(frames[2]!.records).toEqual([{ date_time: '2014-09-20T22:15:07Z', latitude: -19.595684444444444, longitude: -46.93254666666667, speed: 0, heading: 184 }]);
    expect(frames[2]!.problems).toEqual(['a re-upload of history the device buffered']);
    expect(frames[3]!.problems).toEqual(['protocol 0x12: CRC 0x8081 where 0x7377 was computed', 'dropped and counted; the connection is kept']);
    expect(frames[4]!.records).toEqual([{ date_time: '2015-12-29T10:43:33Z', latitude: 23.11168222222222, longitude: 114.40925333333334, speed: 0, heading: 111, event: 'alarm vibration' }]);
    expect(frames[5]!.problems).toEqual(['the last 2 bytes are not a whole frame: the listener waits for the rest']);
  });

  it('when a GT06 location has no fix, then its coordinates are not a position and the problem says so', async () => {
    const { frames } = await decode('gt06', GT06.gpsLbsUtcNoFix);
    expect(frames[0]!.records).toEqual([expect.objectContaining({ latitude: null, longitude: null, speed: null, heading: null })]);
    expect(frames[0]!.problems).toContain('no GPS fix: the coordinates are not stored as a position');
  });

  it('when a Teltonika login, the wiki\'s Codec 8 packet and a ping are given, then the login is answered 01 and the packet its record count', async () => {
    const login = `000f${Buffer.from('356307042441013').toString('hex')}`;
    const { frames } = await decode('teltonika', `${login}${WIKI.codec8Example1}ff`);
    expect(frames).toEqual([
      { kind: 'login', records: [], answer: '01', problems: ['IMEI 356307042441013: answered 01 when it is registered; 00, then closed, when not'] },
      { kind: 'packet', records: [{ date_time: '2019-06-10T10:04:46Z', latitude: null, longitude: null, speed: null, heading: null, lv_battery_voltage: 24.079 }], answer: '00000001', problems: [] },
      { kind: 'ping', records: [], answer: null, problems: [] },
    ]);
  });

  it('when an OsmAnd query string is given, then its position is read with speed in km/h; without an id it is refused 400', async () => {
    expect((await decode('osmand', 'id=48241179&lat=-23.55&lon=-46.63&timestamp=1764000000&speed=10')).frames).toEqual([{
      kind: 'positions', records: [{ date_time: '2025-11-24T16:00:00Z', latitude: -23.55, longitude: -46.63, speed: 18.52 }], answer: null,
      problems: ['device id 48241179: answered 200 when it is registered'],
    }]);
    expect((await decode('osmand', '/?lat=1')).frames).toEqual([{ kind: 'refused', records: [], answer: null, problems: ['id or deviceid is required', 'answered 400'] }]);
  });

  it('when the protocol is unknown or the input is not hex, then one line says so and the exit code is 1', async () => {
    const unknown = await fails('h02', '00');
    expect([unknown.code, unknown.stderr]).toEqual([1, 'telematics: unknown protocol "h02": one of teltonika, osmand, gt06\n']);
    const notHex = await fails('gt06', '78787');
    expect([notHex.code, notHex.stderr]).toEqual([1, 'telematics: the input has an odd number of hex digits\n']);
    expect((await fails('teltonika', 'xyz')).stderr).toBe('telematics: the input is not hex: give the bytes as hex digits\n');
  });
});
