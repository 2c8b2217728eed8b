/**
 * The request line, one per completed request: `{"level":30,"time":…,<the logger's bindings>,
 * "reqId":…,"method":…,"route":…,"status":…,"ms":…,"msg":"request"}`, the very line
 * `logger.info({ reqId, method, route, status, ms }, 'request')` writes, put together here and
 * handed to the logger's own destination. Every other line goes through pino. Why: pino builds a
 * line by walking the logged object and concatenating its parts (~1.3 µs and ~3 KB of garbage a
 * request here, against ~0.3 µs and the line itself; docs/decisions/0012), and this line is written on
 * every request. Its fields hold no secret, so it never needed the redaction pass either.
 */
import pino, { type Level, type Logger } from 'pino';
import { isPlainRequestId } from './request-id.js';

export type RequestLine = (level: Level, reqId: string, method: string, route: string | null, status: number, ms: number) => void;

/** JSON texts of the few methods and route templates there are, made once each. */
function memoJson(): (value: string) => string {
  const texts = new Map<string, string>();
  return (value) => {
    let text = texts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      if (texts.size < 1000) texts.set(value, text);
    }
    return text;
  };
}

export function requestLineWriter(logger: Logger): RequestLine {
  const { streamSym, timeSym, chindingsSym, needsMetadataGsym, messageKeySym, mixinSym } = pino.symbols;
  const holder = logger as unknown as Record<symbol, unknown>;
  const stream = holder[streamSym] as { write(line: string): void } & Record<symbol, unknown>;
  // A multistream wants each line's level alongside it, and a logger with another message key or a
  // mixin writes other lines (the service's loggers have neither): those go through pino as before.
  const plain = stream[needsMetadataGsym] !== true && holder[messageKeySym] === 'msg' && !holder[mixinSym];
  if (!plain) {
    return (level, reqId, method, route, status, ms) => logger[level]({ reqId, method, route, status, ms }, 'request');
  }
  const time = holder[timeSym] as () => string;
  const bindings = holder[chindingsSym] as string;
  const methodJson = memoJson();
  const routeJson = memoJson();
  const values = logger.levels.values;
  return (level, reqId, method, route, status, ms) => {
    const id = isPlainRequestId(reqId) ? `"${reqId}"` : JSON.stringify(reqId);
    stream.write(`{"level":${values[level]}${time()}${bindings},"reqId":${id},"method":${methodJson(method)},"route":${route === null ? 'null' : routeJson(route)},"status":${status},"ms":${ms},"msg":"request"}\n`);
  };
}
