/**
 * The one error handler, on a bare Fastify instance: database failures that a retry can cure are
 * 503 with Retry-After and a fixed text; anything unknown is a 500 that reveals nothing.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src/http/error-handler.js';

const thrown = (code: string | undefined, message: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('the error handler', () => {
  const app = Fastify({ logger: false });
  beforeAll(async () => {
    installErrorHandling(app);
    app.get<{ Querystring: { code?: string; message?: string } }>('/throw', async (request) => {
      throw thrown(request.query.code, request.query.message ?? 'secret internals: password=hunter2');
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it.each([
    ['40P01', 'deadlock detected'], ['40001', 'could not serialize access'], ['57P01', 'terminating connection'],
    ['ECONNREFUSED', 'connect ECONNREFUSED'], [undefined, 'Connection terminated unexpectedly'],
  ])('when the database fails with %s (%s), then the answer is 503 with Retry-After', async (code, message) => {
    const response = await app.inject({ url: '/throw', query: { ...(code ? { code } : {}), message } });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toEqual({ detail: 'Service temporarily unavailable.' });
  });

  it('when an unknown error is thrown, then the answer is 500 and says nothing of it', async () => {
    const response = await app.inject({ url: '/throw' });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('hunter2');
    expect(Object.keys(response.json())).toEqual(['detail']);
  });
});
