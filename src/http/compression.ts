/**
 * Compression of the large JSON responses (vehicle data, trips, the vehicle list, the OpenAPI
 * document) with @fastify/compress: br or gzip as the client asks, `Vary: accept-encoding`, no
 * Content-Length on a compressed stream. Only routes registered in a scope that calls
 * `compressResponses` get its hooks; every other route pays nothing for it.
 *
 * Settings were chosen on the body of POST /vehicle-data for 20 VINs × 24 h, every datapoint
 * (93 MB): figures in docs/vehicle-data.md#compression.
 */
import { constants, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { negotiateContentCoding } from './accept-encoding.js';

/**
 * Quality 4: 4.1 % of the body for 0.6 s of the service's CPU per 93 MB read. Quality 5 gives
 * 3.5 % but costs 1.0 s, and on two cores that CPU is the read's time (1.47× the uncompressed
 * read against 1.26×): it pays only below ~12 Mbit/s. Node's default 11 gives 2.8 % at 0.5 MB/s,
 * far slower than the body is written. A 256 KiB window compresses this JSON as well as the
 * default 4 MiB one (records repeat within a few KiB) and keeps a response's encoder near 300 KiB.
 * Every write (a 64 KiB chunk of the body) is flushed, so each reaches the client as soon as it is
 * compressed: unflushed, brotli sent its first byte after 512 KiB of body (after more than 8 MiB
 * with the 4 MiB window) and gzip after 640 KiB. It adds at most 1 % to the compressed size.
 */
export const BROTLI_OPTIONS: BrotliOptions = {
  flush: constants.BROTLI_OPERATION_FLUSH,
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_LGWIN]: 18 },
};

/**
 * Level 5: 4.6 % at about the CPU of brotli's 4 (the default 6 gains 0.3 points for 10 % more, 4
 * loses 0.4 for 15 % less). The default 32 KiB window and memLevel 8 keep the encoder near
 * 300 KiB per response. Flushed per write for the same reason as brotli.
 */
export const GZIP_OPTIONS: ZlibOptions = { level: 5, flush: constants.Z_SYNC_FLUSH };

/**
 * Compresses the responses of the routes `scope` holds: call it at the start of a plugin that
 * registers only large routes.
 */
export async function compressResponses(scope: FastifyInstance): Promise<void> {
  // Runs before the library's own hook (a scope's hooks come before the ones it adds per route).
  scope.addHook('onSend', (request, reply, payload, done) => {
    // The library reads `*` as gzip even when `gzip;q=0` refuses it; it is handed our decision instead.
    request.headers['accept-encoding'] = negotiateContentCoding(request.headers['accept-encoding']);
    // On every answer, compressed or not, so that a cache keeps the variants apart.
    reply.header('vary', 'accept-encoding');
    done(null, payload);
  });
  await scope.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip', 'identity'],
    brotliOptions: BROTLI_OPTIONS,
    zlibOptions: GZIP_OPTIONS,
    // Error bodies and other small answers are sent as they are.
    threshold: 1024,
    // Request bodies are not decompressed: their limits and error texts stay as they are.
    globalDecompression: false,
  });
}
