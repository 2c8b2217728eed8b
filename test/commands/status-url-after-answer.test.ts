/**
 * A creation answers `Pending` once the automaker has given its status URL, and stores that URL
 * after the answer (create-command.ts): the answer does not wait for its commit, a failed write
 * costs the command its outcome (it ends as `Command timeout.`) but never the request, and the
 * worker polls the command once the URL lands.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { sign } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { backgroundWritesSettled } from '../../src/store/write-batcher.js';

const VIN = ALPHA_VINS[0];

describe.each(DATABASE_KINDS)('a creation\'s status URL, stored after its answer, on %s', (kind) => {
  let svc: TestService;
  let token: string;

  beforeAll(async () => {
    svc = await startTestService(kind);
    await svc.useSimulatedCloud({ latencyMs: [0, 0] });
    token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
  });
  afterAll(async () => { await svc?.close(); });
  beforeEach(async () => {
    await backgroundWritesSettled(svc.store);
    if (kind === 'postgres') await sql`drop trigger if exists status_url_trigger on commands`.execute(svc.store.db);
    else await sql`drop trigger if exists status_url_trigger`.execute(svc.store.db);
  });

  /** POST /vehicle-command as a client sends it, without waiting for anything after the answer. */
  const create = () => svc.request('POST', '/vehicle-command', {
    json: { vin: VIN, command: 'diagnostics' },
    headers: { authorization: `Bearer ${token}`, 'x-signature': sign(SECRETS.alphaDispatch.sign, VIN, 'diagnostics') },
  });
  const stored = (id: string) => svc.store.db.selectFrom('commands').select(['status', 'status_url', 'next_poll_at', 'detail']).where('id', '=', id).executeTakeFirstOrThrow();

  /** Every update that sets a status URL fails (`refuse`) or, on PostgreSQL, takes a second (`slow`). */
  async function triggerOnStatusUrl(behaviour: 'refuse' | 'slow') {
    if (kind === 'postgres') {
      const body = behaviour === 'refuse' ? `raise exception 'status URL refused by the test'` : 'perform pg_sleep(1)';
      await sql.raw(`create or replace function status_url_trigger() returns trigger language plpgsql as $$ begin ${body}; return new; end $$`).execute(svc.store.db);
      await sql`create trigger status_url_trigger before update of status_url on commands for each row execute function status_url_trigger()`.execute(svc.store.db);
    } else {
      if (behaviour === 'slow') throw new Error('SQLite triggers cannot wait');
      await sql`create trigger status_url_trigger before update of status_url on commands begin select raise(abort, 'status URL refused by the test'); end`.execute(svc.store.db);
    }
  }

  it('when the command is answered, then its status URL is stored soon after and the worker polls it to its outcome', async () => {
    const created = await create();
    expect(created.body).toMatchObject({ status: 'Pending' });
    await backgroundWritesSettled(svc.store);
    const row = await stored(created.body.id);
    expect(row.status_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(Number(row.next_poll_at)).toBe(svc.clock.now() + 1000);
    svc.clock.advance(1000);
    await svc.worker.runOnce();
    expect((await stored(created.body.id)).status).toBe('Success');
  });

  it.runIf(kind === 'postgres')('when storing the status URL takes a second, then the answer does not wait for it', async () => {
    await triggerOnStatusUrl('slow');
    const created = await create();
    expect(created.body).toMatchObject({ status: 'Pending' });
    // Had the answer waited for the commit, the URL would be there already.
    expect((await stored(created.body.id)).status_url).toBeNull();
    await backgroundWritesSettled(svc.store);
    expect((await stored(created.body.id)).status_url).not.toBeNull();
  });

  it('when the status URL cannot be stored, then the answer is still Pending, the failure is logged with the command, and the command ends as Command timeout. at its deadline', async () => {
    await triggerOnStatusUrl('refuse');
    const logged = svc.logs.length;
    const created = await create();
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'Pending' });
    await backgroundWritesSettled(svc.store);
    const failure = svc.logs.slice(logged).map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'a command\'s status URL could not be stored: it ends as `Command timeout.` at its deadline');
    expect(failure).toMatchObject({ level: 50, commandId: created.body.id });
    expect(await stored(created.body.id)).toMatchObject({ status: 'Pending', status_url: null, next_poll_at: null });
    svc.clock.advance(121_000);
    await svc.worker.runOnce();
    expect((await stored(created.body.id)).status).toBe('Error');
    const read = await svc.request('GET', `/vehicle-command/${created.body.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
    // The service goes on: the next command, with nothing refused, is stored and answered.
    await sql`drop trigger ${sql.raw(kind === 'postgres' ? 'status_url_trigger on commands' : 'status_url_trigger')}`.execute(svc.store.db);
    const next = await create();
    await backgroundWritesSettled(svc.store);
    expect((await stored(next.body.id)).status_url).not.toBeNull();
  });
});
