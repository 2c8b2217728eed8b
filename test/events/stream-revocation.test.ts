/**
 * Open event streams end when their application loses access: the real service and real SSE
 * readers, and the operator's own `telematics admin app disable` / `rotate-secret` run as child
 * processes against the service's database (the built CLI), so the service learns of the change
 * only as it would in production (SQLite's data_version, PostgreSQL's NOTIFY).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf } from '../../src/domain/events.js';
import { createApplication } from '../../src/registry/manage-applications.js';
import { appendEvents } from '../../src/store/event-appends.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { BIN, serveEnv } from '../support/service-process.js';
import { openSse, type SseStream } from '../support/sse-client.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { scaled } from '../support/timeouts.js';

const run = promisify(execFile);
/** The sweep's interval here; the default is 5 s. */
const RECHECK_MS = 500;
/** A CLI process takes seconds to start on a loaded machine (8-10 s seen with five test runs at once). */
const CLI_TEST_MS = scaled(60_000);

describe.each(DATABASE_KINDS)('event streams after revocation on %s', (kind) => {
  let svc: TestService;
  const streams: SseStream[] = [];
  /** When each stream ended, as seen by its reader. */
  const endedAt = new Map<SseStream, number>();
  let label = 0;
  // The CLI as the operator runs it; it changes the registry only, so keys of its own will do.
  const admin = (...args: string[]) => run(process.execPath, [BIN, 'admin', 'app', ...args, '--database', svc.databaseUrl], { env: serveEnv(kind) });
  const open = async (token: string) => {
    const stream = await openSse(`${svc.url}/events/stream`, { authorization: `Bearer ${token}` });
    streams.push(stream);
    void stream.ended.then(() => endedAt.set(stream, Date.now()));
    return stream;
  };
  /** A new application of alpha and a token for it (each test revokes its own). */
  const application = async (name: string) => {
    const issued = await createApplication(svc.store.db, svc.keyring, { companyId: 'alpha', name }, svc.clock.now());
    return { clientId: issued.client_id, token: await svc.token(issued.client_id, issued.client_secret!) };
  };
  /** Milliseconds from `since` until `stream` ended, or Infinity when it has not `ms` after now. */
  const endsWithin = async (stream: SseStream, ms: number, since = Date.now()) => {
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([stream.ended.then(() => true), new Promise<false>((r) => { timer = setTimeout(() => r(false), ms); })]);
    clearTimeout(timer);
    return ended ? endedAt.get(stream)! - since : Number.POSITIVE_INFINITY;
  };
  /** Runs the CLI and answers how long it took and how long after its start `stream` ended. */
  const timedAdmin = async (stream: SseStream, ...args: string[]) => {
    const started = Date.now();
    await admin(...args);
    const cliMs = Date.now() - started;
    const endedMs = await endsWithin(stream, 5000, started);
    console.log(`${kind}: admin app ${args[0]} took ${cliMs} ms; the stream ended ${endedMs} ms after it started`);
    return { cliMs, endedMs };
  };
  const appendOnline = async () => {
    label += 1;
    const event = { id: eventIdOf('revocation-test', kind, label), type: 'vehicle.online' as const, vin: ALPHA_VINS[0], companyId: 'alpha', applicationId: null, occurredAt: T0 + label * 1000, data: { vin: ALPHA_VINS[0] } };
    await appendEvents(svc.store.db, [event], T0);
    return event;
  };

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { eventStreams: { pollMs: 20, keepAliveMs: 60_000, maxDurationMs: 10 * 60_000, recheckMs: RECHECK_MS } } });
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => { await svc?.close(); });

  it('when `admin app disable` runs while its streams are open, then they end within seconds saying why, reconnecting is 401, and another application\'s stream goes on', async () => {
    const app = await application('stream-disable');
    const [first, second] = [await open(app.token), await open(app.token)];
    const other = await open(await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client));
    expect([first.status, second.status, other.status]).toEqual([200, 200, 200]);

    const { cliMs, endedMs } = await timedAdmin(first, 'disable', '--client-id', app.clientId);
    // Within a sweep of the change (a second to spare), which the CLI makes before it exits.
    expect(endedMs).toBeLessThan(cliMs + RECHECK_MS + 1000);
    expect(await endsWithin(second, 1000)).toBeLessThan(1000);
    expect(first.frames.at(-1)?.comments).toEqual(['revoked']);
    const again = await open(app.token);
    expect(again.status).toBe(401);
    expect(JSON.parse(again.text)).toEqual({ detail: 'Invalid or expired token.' });

    // The other application's stream was checked as often, and let be.
    const event = await appendOnline();
    expect((await other.events(1)).map((f) => JSON.parse(f.data!).id)).toEqual([event.id]);
    expect(svc.logs.some((l) => l.includes('event stream closed') && l.includes('its credentials changed'))).toBe(true);
  }, CLI_TEST_MS);

  it('when `admin app rotate-secret` runs while a stream is open, then it ends within seconds and its token no longer opens one', async () => {
    const app = await application('stream-rotate');
    const stream = await open(app.token);
    const before = await appendOnline();
    expect((await stream.events(1)).map((f) => JSON.parse(f.data!).id)).toEqual([before.id]);

    const { cliMs, endedMs } = await timedAdmin(stream, 'rotate-secret', '--client-id', app.clientId, '--only', 'sign', '--json');
    expect(endedMs).toBeLessThan(cliMs + RECHECK_MS + 1000);
    expect(stream.frames.at(-1)?.comments).toEqual(['revoked']);
    expect((await open(app.token)).status).toBe(401);
  }, CLI_TEST_MS);

  it('when nothing changes, then an open stream outlives many rechecks', async () => {
    const app = await application('stream-kept');
    const stream = await open(app.token);
    expect(await endsWithin(stream, RECHECK_MS * 4)).toBe(Number.POSITIVE_INFINITY);
    const event = await appendOnline();
    expect((await stream.events(1)).map((f) => JSON.parse(f.data!).id)).toEqual([event.id]);
  });
});
