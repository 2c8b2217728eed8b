/**
 * The request line put together by hand is the line pino would write for the same fields, on
 * the service's own logger (bindings, time, level numbers), and falls back to pino where it
 * cannot promise that.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { requestLineWriter } from '../../src/http/request-line.js';
import { createLogger } from '../../src/logger.js';

function capture() {
  const lines: string[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(line) } };
}

describe('request line', () => {
  it('when written by hand, then it is byte for byte the line pino writes for the same fields', () => {
    const sink = capture();
    // The service's logger, with a fixed clock so the two lines can be compared whole.
    const base = pino({ level: 'debug', base: { service: 'telematics' }, timestamp: () => ',"time":1795815625998' }, sink.stream);
    const logger = base.child({}, { redact: { paths: [] } });
    const write = requestLineWriter(logger);
    const cases: Array<[pino.Level, string, string, string | null, number, number]> = [
      ['info', '130f9efc-74bf-4400-bd3a-55e3836fe120', 'GET', '/vehicle/:vin', 200, 9.6],
      ['debug', 'caller.id:1-2_3', 'POST', '/ingest/:oem', 202, 0],
      ['info', 'x', 'DELETE', null, 404, 1234.5],
      ['info', 'odd"id\\', 'PATCH', '/a "quoted" route', 500, 0.1],
    ];
    for (const [level, reqId, method, route, status, ms] of cases) {
      write(level, reqId, method, route, status, ms);
      logger[level]({ reqId, method, route, status, ms }, 'request');
    }
    expect(sink.lines).toHaveLength(8);
    for (let i = 0; i < sink.lines.length; i += 2) expect(sink.lines[i]).toBe(sink.lines[i + 1]);
    expect(JSON.parse(sink.lines[0]!)).toEqual({
      level: 30, time: 1795815625998, service: 'telematics', reqId: '130f9efc-74bf-4400-bd3a-55e3836fe120', method: 'GET', route: '/vehicle/:vin', status: 200, ms: 9.6, msg: 'request',
    });
  });

  it('when the service logger writes it, then it parses as JSON with the fields the log readers use', () => {
    const sink = capture();
    const write = requestLineWriter(createLogger('info', sink.stream));
    write('info', 'abc', 'GET', '/healthz', 200, 0.4);
    const line = JSON.parse(sink.lines[0]!);
    expect(line).toMatchObject({ level: 30, service: 'telematics', reqId: 'abc', method: 'GET', route: '/healthz', status: 200, ms: 0.4, msg: 'request' });
    expect(typeof line.time).toBe('number');
  });

  it('when the logger has a mixin or writes to a multistream, then the line goes through pino', () => {
    const sink = capture();
    const mixed = pino({ base: {}, timestamp: false, mixin: () => ({ zone: 'eu' }) }, sink.stream);
    requestLineWriter(mixed)('info', 'a', 'GET', '/x', 200, 1);
    expect(JSON.parse(sink.lines[0]!)).toMatchObject({ zone: 'eu', reqId: 'a', msg: 'request' });
    const multi = capture();
    const fanned = pino({ base: {}, timestamp: false }, pino.multistream([{ stream: multi.stream }]));
    requestLineWriter(fanned)('info', 'b', 'GET', '/x', 200, 1);
    expect(JSON.parse(multi.lines[0]!)).toMatchObject({ reqId: 'b', status: 200, msg: 'request' });
  });
});
