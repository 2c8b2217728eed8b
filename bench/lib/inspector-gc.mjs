/**
 * A full garbage collection in another Node process, so its memory can be read without the
 * garbage it happens to hold: the process runs with `--inspect=127.0.0.1:0` (nodeArgs), and
 * HeapProfiler.collectGarbage is sent over its inspector WebSocket. Node 20 has no WebSocket
 * client without a flag, so this speaks the little of RFC 6455 it needs: one masked text frame
 * out, unmasked frames in until the answer.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** The inspector's ws:// URL, from the "Debugger listening on" line the process wrote to `logFile`. */
export function inspectorUrlIn(logFile) {
  const m = /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(logFile, 'utf8'));
  if (!m) throw new Error(`no inspector URL in ${logFile}: start the process with --inspect=127.0.0.1:0`);
  return m[1];
}

/** Sends one inspector command and resolves with its answer. */
export function inspectorCall(wsUrl, method, params = {}) {
  const url = new URL(wsUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`${method}: no answer from ${wsUrl}`)); }, 30_000);
    const done = (error, value) => { clearTimeout(timer); socket.destroy(); if (error) reject(error); else resolve(value); };
    socket.once('error', (error) => done(error));
    socket.once('connect', () => socket.write([
      `GET ${url.pathname} HTTP/1.1`, `Host: ${url.host}`, 'Upgrade: websocket', 'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13', '', '',
    ].join('\r\n')));
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!/^HTTP\/1\.1 101/.test(buffer.toString('latin1', 0, end))) return done(new Error(`inspector refused the WebSocket: ${buffer.toString('latin1', 0, end)}`));
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        const payload = Buffer.from(JSON.stringify({ id: 1, method, params }));
        if (payload.length > 0xffff) return done(new Error('inspector command too long'));
        const mask = randomBytes(4);
        const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
        socket.write(Buffer.concat([head, mask, payload.map((b, i) => b ^ mask[i % 4])]));
      }
      // Server frames are unmasked: opcode byte, length (7 bits, or 126 + u16, or 127 + u64), payload.
      while (buffer.length >= 2) {
        const short = buffer[1] & 0x7f;
        const at = short === 126 ? 4 : short === 127 ? 10 : 2;
        if (buffer.length < at) return;
        const length = short === 126 ? buffer.readUInt16BE(2) : short === 127 ? Number(buffer.readBigUInt64BE(2)) : short;
        if (buffer.length < at + length) return;
        const text = buffer.toString('utf8', at, at + length);
        buffer = buffer.subarray(at + length);
        const message = JSON.parse(text);
        if (message.id === 1) return message.error ? done(new Error(`${method}: ${message.error.message}`)) : done(undefined, message.result);
      }
    });
  });
}

/** Two full collections (the second frees what the first's finalizers released). */
export async function collectGarbage(wsUrl) {
  await inspectorCall(wsUrl, 'HeapProfiler.collectGarbage');
  await inspectorCall(wsUrl, 'HeapProfiler.collectGarbage');
}
