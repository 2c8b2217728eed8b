import { brotliDecompressSync, constants, createBrotliCompress, createGzip, gunzipSync, type BrotliCompress, type Gzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { BROTLI_OPTIONS, GZIP_OPTIONS } from '../../src/http/compression.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, fixtureFleet, SECRETS } from '../support/fixture-fleet.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const MIN = 60;
const HOUR = 3_600_000;
/** The stream's chunk size (src/telemetry/stream-vehicle-data.ts). */
const CHUNK = 64 * 1024;
/** Five hours of driving and parking at 10 s: ~1,800 records, a body of several chunks. */
const DRIVE = syntheticDrive(T0 - 20 * HOUR, [
  stand(30 * MIN), move(60, 20 * MIN), stand(60 * MIN), move(40, 25 * MIN), stand(120 * MIN), move(50, 10 * MIN), stand(30 * MIN),
]);
const DATA = { vins: [ALPHA_VINS[0]], datapoints: ['vin', 'date_time', 'speed', 'latitude', 'longitude', 'odometer', 'fuel_level', 'flag'] };
const TRIPS = { vins: [ALPHA_VINS[0]], datapoints: ['start_date_time', 'end_date_time', 'duration', 'avg_speed', 'max_speed', 'start_odometer', 'end_odometer', 'distance', 'avg_fuel_consumption', 'start_latitude', 'start_longitude', 'end_latitude', 'end_longitude'] };
/** Enough vehicles for Alpha's list to pass the 1 KiB under which nothing is compressed. */
const EXTRA_VEHICLES = Array.from({ length: 12 }, (_, i) => ({
  vin: `9BWZZZ377VT3000${String(i).padStart(2, '0')}`, plate: `LST${i}A${String(i).padStart(2, '0')}`, oem: 'simmotors', model: 'Gol', year: 2022,
}));

const DECODERS: Record<string, (body: Buffer, flushOnly?: boolean) => Buffer> = {
  br: (body, flushOnly) => brotliDecompressSync(body, flushOnly ? { finishFlush: constants.BROTLI_OPERATION_FLUSH } : {}),
  gzip: (body, flushOnly) => gunzipSync(body, flushOnly ? { finishFlush: constants.Z_SYNC_FLUSH } : {}),
};

/** The body as the client reads it once decoded. */
const decoded = (res: RawResponse): Buffer => {
  const coding = res.headers['content-encoding'];
  return coding === undefined ? res.body : DECODERS[coding]!(res.body);
};

describe.each(DATABASE_KINDS)('response compression on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let plain: Buffer;

  const post = (path: string, json: unknown, acceptEncoding?: string, headers = alpha) => rawRequest(`${svc.url}${path}`, {
    method: 'POST', json, headers: { ...headers, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) },
  });
  const get = (path: string, acceptEncoding?: string) => rawRequest(`${svc.url}${path}`, {
    headers: { ...alpha, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) },
  });

  beforeAll(async () => {
    const fleet = fixtureFleet();
    fleet.companies[0]!.vehicles.push(...EXTRA_VEHICLES);
    svc = await startTestService(kind, fleet);
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const records = DRIVE.map((r) => ({
      vin: ALPHA_VINS[0], date_time: iso(r.ts), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer, fuel_level: r.fuelLevel,
    }));
    for (let i = 0; i < records.length; i += 500) expect((await svc.ingest(records.slice(i, i + 500))).body.rejected).toEqual([]);
    await runTripDetectionOnce(svc.store, svc.clock, { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 24 * HOUR, intervalMs: 5000 });
    const res = await post('/vehicle-data', DATA);
    expect(res.status).toBe(200);
    plain = res.body;
  });
  afterAll(async () => { await svc?.close(); });

  it('when no Accept-Encoding is sent, then the body is not compressed and Vary still names Accept-Encoding', async () => {
    const res = await post('/vehicle-data', DATA);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBe('accept-encoding');
    expect(plain.length).toBeGreaterThan(3 * CHUNK);
    expect(JSON.parse(plain.toString())[ALPHA_VINS[0]]).toHaveLength(DRIVE.length);
  });

  it.each(['br', 'gzip'])('when %s is accepted, then a body of several chunks is streamed in it, without Content-Length, and decodes to the same bytes', async (coding) => {
    const res = await post('/vehicle-data', DATA, coding);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.vary).toBe('accept-encoding');
    expect(res.body.length).toBeLessThan(plain.length / 5);
    expect(decoded(res).equals(plain)).toBe(true);
    // What arrived first decodes on its own, without the rest: the client can start on it.
    const start = DECODERS[coding]!(res.chunks[0]!, true);
    expect(start.length).toBeGreaterThan(0);
    expect(start.equals(plain.subarray(0, start.length))).toBe(true);
  });

  it('when gzip is streamed, then it is flushed after every chunk of the body, so none waits for the next', async () => {
    const res = await post('/vehicle-data', DATA, 'gzip');
    // A sync flush ends with an empty stored block, 00 00 ff ff.
    let flushes = 0;
    for (let at = res.body.indexOf('0000ffff', 0, 'hex'); at !== -1; at = res.body.indexOf('0000ffff', at + 4, 'hex')) flushes += 1;
    expect(flushes).toBeGreaterThanOrEqual(Math.floor(plain.length / CHUNK));
  });

  it.each([
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, *', 'gzip'],
    ['*', 'br'],
    ['identity', undefined],
    ['br;q=0, gzip;q=0', undefined],
    ['*;q=0', undefined],
    ['identity, gzip;q=0.5', undefined],
    ['deflate', undefined],
    ['', undefined],
  ])('when Accept-Encoding is %j, then the content coding is %s', async (header, coding) => {
    const res = await post('/vehicle-data', DATA, header);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.headers.vary).toBe('accept-encoding');
    expect(decoded(res).equals(plain)).toBe(true);
  });

  it.each(['br', 'gzip'])('when an error is answered to a client accepting %s, then its status and body are exactly the uncompressed ones', async (coding) => {
    const cases: [Promise<RawResponse>, number, string][] = [
      [post('/vehicle-data', { vins: ['9BWZZZ377VT999999'], datapoints: ['speed'] }, coding), 404, 'VIN not found or unauthorized access.'],
      [post('/vehicle-data', { vins: [ALPHA_VINS[0]], datapoints: ['warp_factor'] }, coding), 400, 'Unknown datapoint: warp_factor.'],
      [post('/vehicle-data', DATA, coding, {}), 401, 'Not authenticated.'],
      [post('/vehicle-trips', { vins: ['9BWZZZ377VT999999'], datapoints: ['duration'] }, coding), 404, 'VIN not found or unauthorized access.'],
    ];
    for (const [response, status, detail] of cases) {
      const res = await response;
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers.vary).toBe('accept-encoding');
      expect(decoded(res).toString()).toBe(JSON.stringify({ detail }));
    }
  });

  it.each(['br', 'gzip'])('when POST /vehicle-trips, GET /vehicle and /openapi.json are asked in %s, then they come in it and decode to the uncompressed answers', async (coding) => {
    const pairs: [() => Promise<RawResponse>, () => Promise<RawResponse>][] = [
      [() => post('/vehicle-trips', TRIPS), () => post('/vehicle-trips', TRIPS, coding)],
      [() => get('/vehicle'), () => get('/vehicle', coding)],
      [() => get('/openapi.json'), () => get('/openapi.json', coding)],
    ];
    for (const [asPlain, asCompressed] of pairs) {
      const [uncompressed, compressed] = [await asPlain(), await asCompressed()];
      expect(uncompressed.status).toBe(200);
      expect(uncompressed.headers['content-encoding']).toBeUndefined();
      expect(uncompressed.body.length).toBeGreaterThan(1024);
      expect(compressed.headers['content-encoding']).toBe(coding);
      expect(compressed.headers.vary).toBe('accept-encoding');
      expect(decoded(compressed).equals(uncompressed.body)).toBe(true);
    }
  });

  it('when a small route (GET /vehicle/{vin}, /healthz, a 401) is asked with br, then it is answered uncompressed, with no Vary', async () => {
    const responses = [
      await get(`/vehicle/${ALPHA_VINS[0]}`, 'br, gzip'),
      await get('/healthz', 'br, gzip'),
      await rawRequest(`${svc.url}/vehicle/${ALPHA_VINS[0]}`, { headers: { 'accept-encoding': 'br' } }),
    ];
    for (const res of responses) {
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(res.body.length));
    }
    expect(JSON.parse(responses[0]!.body.toString()).vin).toBe(ALPHA_VINS[0]);
  });
});

describe('the encoders compressed responses use', () => {
  /** Writes one chunk and resolves to what came out before anything else was written or ended. */
  const firstOutput = (encoder: BrotliCompress | Gzip, chunk: Buffer) => new Promise<Buffer>((resolve) => {
    const out: Buffer[] = [];
    encoder.on('data', (d: Buffer) => out.push(d));
    encoder.write(chunk, () => setImmediate(() => resolve(Buffer.concat(out))));
  });
  const chunk = Buffer.from(JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ date_time: `2026-11-20 09:${String(i % 60).padStart(2, '0')}:00`, speed: i % 90, odometer: 10_000 + i }))).slice(0, CHUNK));

  it.each([
    ['br', () => createBrotliCompress(BROTLI_OPTIONS)],
    ['gzip', () => createGzip(GZIP_OPTIONS)],
  ] as const)('when one chunk is written to the %s encoder, then all of it comes out before the next, ready to decode', async (coding, make) => {
    const encoder = make();
    const out = await firstOutput(encoder, chunk);
    expect(DECODERS[coding]!(out, true).equals(chunk)).toBe(true);
    encoder.destroy();
  });
});
