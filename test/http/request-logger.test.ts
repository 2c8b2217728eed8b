/**
 * Request loggers made from the service's logger on first use (src/http/request-logger.ts) in a
 * real Fastify app that has no logger of its own: a line
 * written through request.log carries the request id and is redacted like every other line, a
 * route's logLevel still decides, and a request that logs nothing makes no pino child.
 */
import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { refuseUnknownLogLevels, requestLoggersOf } from '../../src/http/request-logger.js';
import { createLogger } from '../../src/logger.js';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk)) as Record<string, unknown>); done(); } });

async function appWith() {
  const logger = createLogger('info', sink);
  const child = vi.spyOn(logger, 'child');
  // As build-app.ts makes it: Fastify has no logger; each request's is made from ours.
  const app = Fastify({ logController: new LogController({ disableRequestLogging: true }), childLoggerFactory: requestLoggersOf(logger), genReqId: () => 'req-1' });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/talks', async (request) => {
    request.log.info({ token: 'secret-value', n: 1 }, 'talking');
    request.log.debug('not at info');
    return { level: request.log.level, info: (request.log as Logger).isLevelEnabled('info'), debug: (request.log as Logger).isLevelEnabled('debug') };
  });
  app.get('/probe', { logLevel: 'warn' }, async (request) => {
    request.log.info('hidden at warn');
    request.log.warn({ n: 2 }, 'shown at warn');
    return { level: request.log.level, info: (request.log as Logger).isLevelEnabled('info') };
  });
  app.get('/child', async (request) => {
    request.log.child({ part: 'inner' }).info({ client_secret: 'x' }, 'from the child');
    return {};
  });
  await app.ready();
  return { app, child };
}

afterEach(() => { lines.length = 0; });

describe('request loggers made on first use', () => {
  it('when a request logs nothing, then no pino child is made for it', async () => {
    const { app, child } = await appWith();
    child.mockClear();
    for (let i = 0; i < 5; i += 1) expect((await app.inject({ url: '/quiet' })).statusCode).toBe(200);
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    await app.close();
  });

  it('when a route logs, then its line carries the request id, is redacted, and levels below the logger\'s are dropped', async () => {
    const { app } = await appWith();
    const res = await app.inject({ url: '/talks' });
    expect(res.json()).toEqual({ level: 'info', info: true, debug: false });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'req-1', msg: 'talking', n: 1, token: '[redacted]', service: 'telematics' });
    await app.close();
  });

  it('when a route has its own logLevel, then it decides what the request logs', async () => {
    const { app } = await appWith();
    const res = await app.inject({ url: '/probe' });
    expect(res.json()).toEqual({ level: 'warn', info: false });
    expect(lines.map((l) => l.msg)).toEqual(['shown at warn']);
    expect(lines[0]).toMatchObject({ reqId: 'req-1', n: 2 });
    await app.close();
  });

  it('when a route makes a child of it, then the child carries the request id and its own bindings', async () => {
    const { app } = await appWith();
    expect((await app.inject({ url: '/child' })).statusCode).toBe(200);
    expect(lines).toEqual([expect.objectContaining({ reqId: 'req-1', part: 'inner', msg: 'from the child', client_secret: '[redacted]' })]);
    await app.close();
  });

  it('when a route has a log level the logger does not know, then it is refused when added', async () => {
    const app = Fastify({ childLoggerFactory: requestLoggersOf(createLogger('info', sink)) });
    app.addHook('onRoute', refuseUnknownLogLevels(createLogger('info', sink)));
    // Fastify, having no logger of its own, would take it and silence the route.
    expect(() => app.get('/misspelt', { logLevel: 'warnn' as 'warn' }, async () => ({}))).toThrow("GET /misspelt: unknown logLevel 'warnn'");
    app.get('/spelt', { logLevel: 'warn' }, async () => ({}));
    await app.ready();
    expect((await app.inject({ url: '/spelt' })).statusCode).toBe(200);
    await app.close();
  });
});
