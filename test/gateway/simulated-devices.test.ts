/** The pure parts of the simulated trackers: endpoints, record batches, and an FMB device's answers. */
import { describe, expect, it } from 'vitest';
import { osmandEndpoint, osmandEndpointProblem, osmandSample } from '../../src/gateway/osmand/simulated-device.js';
import { recordBatch, type SimulatedTrackerVehicle } from '../../src/gateway/simulated-tracker.js';
import { avlSample, fmbAnswer, teltonikaEndpoint, teltonikaEndpointProblem } from '../../src/gateway/teltonika/simulated-device.js';

const vehicle = (): SimulatedTrackerVehicle => ({
  position: { lat: -23.55, lon: -46.63 }, heading: 90, speedKmh: 0, ignitionOn: false, odometerKm: 1234.5, lvVoltage: 12.6, rpm: 0,
  coolantC: -5, energyPct: 71, powertrain: 'combustion', immobilized: false, random: () => ({ between: (min, max) => (min + max) / 2 }),
});

describe('simulated tracker endpoints', () => {
  it('when a listener\'s endpoint is made, then an IPv6 host is bracketed, and the endpoint passes its own check', () => {
    expect(teltonikaEndpoint('127.0.0.1', 5027)).toBe('127.0.0.1:5027');
    expect(teltonikaEndpoint('::1', 5027)).toBe('[::1]:5027');
    expect(osmandEndpoint('::1', 5055)).toBe('http://[::1]:5055/');
    expect([teltonikaEndpointProblem('[::1]:5027'), osmandEndpointProblem('http://[::1]:5055/')]).toEqual([undefined, undefined]);
  });

  it('when oem-sim is given a malformed endpoint, then the problem names its option', () => {
    expect(teltonikaEndpointProblem('127.0.0.1')).toBe('--teltonika must be HOST:PORT, e.g. 127.0.0.1:5027');
    expect(teltonikaEndpointProblem('127.0.0.1:0')).toBe('--teltonika must be HOST:PORT, e.g. 127.0.0.1:5027');
    expect(teltonikaEndpointProblem('127.0.0.1:65536')).toBe('--teltonika must be HOST:PORT, e.g. 127.0.0.1:5027');
    expect(osmandEndpointProblem('127.0.0.1:5055')).toBe('--osmand-url must be an http:// or https:// URL');
  });
});

describe('simulated record batches', () => {
  it('when records are added and sent, then they go together once, and an empty batch sends nothing', async () => {
    const sent: number[][] = [];
    const batch = recordBatch((_v, at) => at, async (records) => { sent.push([...records]); return records.length; });
    expect(await batch.send()).toBe(0);
    batch.add(vehicle(), 1, false);
    batch.add(vehicle(), 2, true);
    expect(batch.size).toBe(2);
    expect(await batch.send()).toBe(2);
    expect(batch.size).toBe(0);
    expect(await batch.send()).toBe(0);
    expect(sent).toEqual([[1, 2]]);
  });

  it('when a vehicle is sampled, then the AVL record carries the D11 IO ids, and the OsmAnd location m/s and no heading while standing', () => {
    const v = vehicle();
    const avl = avlSample(v, 1000, true);
    expect(avl).toMatchObject({ timestampMs: 1000, latitude: -23.55, longitude: -46.63, speed: 0, eventIoId: 239 });
    expect(Object.fromEntries(avl.io)).toEqual({ 239: 0, 240: 0, 21: 4, 66: 12_600, 16: 1_234_500, 85: 0, 115: 0x10000 - 50, 89: 71 });
    expect(osmandSample(v, 1000)).toMatchObject({ timestamp: '1970-01-01T00:00:01.000Z', coords: { speed: 0, heading: -1 }, is_moving: false });
  });
});

describe('an FMB device\'s answers', () => {
  it('when setdigout comes, then the relay follows and the answer gives the output state', () => {
    const v = vehicle();
    expect(fmbAnswer(v, 'setdigout 1')).toBe('DOUT1:ON Timeout:INFINITY');
    expect(v.immobilized).toBe(true);
    expect(fmbAnswer(v, 'setdigout 0')).toBe('DOUT1:OFF Timeout:INFINITY');
    expect(v.immobilized).toBe(false);
    expect(fmbAnswer(v, 'setdigout ?1')).toBe('DOUT1:IGNORED Timeout:INFINITY');
  });

  it('when getinfo or an unknown text comes, or the vehicle is gone, then the answer is the device\'s wording', () => {
    expect(fmbAnswer(vehicle(), 'getinfo')).toMatch(/^RTC:\d{4}-\d\d-\d\d \d\d:\d\d RST:0 .* MD:0$/);
    expect(fmbAnswer(vehicle(), 'reboot')).toBe('Unknown command: reboot');
    expect(fmbAnswer(undefined, 'setdigout 1')).toBe('Unknown command: setdigout 1');
  });
});
