/**
 * GET /vehicle-command/{id} keeps the answer of an ended command (Success or Error never change,
 * and commands are never deleted) and reads a Pending one from the database every time, since
 * another instance may finish it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCommands } from '../../src/store/commands/insert.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';

const VIN = ALPHA_VINS[0];

describe.each(DATABASE_KINDS)('reading commands again on %s', (kind) => {
  let svc: TestService;
  let auth: Record<string, string>;
  let applicationId: string;

  beforeAll(async () => {
    svc = await startTestService(kind);
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    applicationId = (await svc.store.db.selectFrom('applications').select('id').where('client_id', '=', 'alpha-dispatch').executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => { await svc?.close(); });

  /** A Pending command as another instance would have stored it (no status URL: no worker here polls it). */
  const storePending = async () => {
    const id = randomUUID();
    const now = Date.now();
    await insertCommands(svc.store.db, [{
      id, application_id: applicationId, company_id: 'alpha', vin: VIN, oem: 'simmotors', command: 'diagnostics',
      status: 'Pending', detail: '{}', created_at: now, updated_at: now, deadline_at: now + 3_600_000, code_attempts: 0, poll_attempts: 0,
    }]);
    return id;
  };
  const finishInDatabase = (id: string, status: string, detail: unknown) =>
    svc.store.db.updateTable('commands').set({ status, detail: JSON.stringify(detail), updated_at: Date.now() }).where('id', '=', id).execute();
  const read = (id: string, headers = auth) => svc.request('GET', `/vehicle-command/${id}`, { headers });

  it('when a Pending command is finished by another instance, then the next read shows its outcome', async () => {
    const id = await storePending();
    for (let i = 0; i < 3; i += 1) expect((await read(id)).body.status).toBe('Pending');
    await finishInDatabase(id, 'Success', { odometer: 1 });
    const res = await read(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'Success', detail: { odometer: 1 } });
  });

  it('when an ended command is read again, then the answer is the one kept from its first read, without the database', async () => {
    const id = await storePending();
    await finishInDatabase(id, 'Error', 'Command timeout.');
    const first = await read(id);
    expect(first.body).toMatchObject({ status: 'Error', detail: 'Command timeout.' });
    // The service never changes an ended command; a change made behind its back shows that the
    // second answer did not come from the database.
    await finishInDatabase(id, 'Success', { changed: 'behind the service' });
    const again = await read(id.toUpperCase());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  it('when another application reads a kept command, then it is still refused', async () => {
    const id = await storePending();
    await finishInDatabase(id, 'Success', {});
    expect((await read(id)).status).toBe(200);
    const other = { authorization: `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}` };
    const res = await read(id, other);
    expect(res.status).toBe(403);
    expect(res.body).toEqual((await svc.request('GET', `/vehicle-command/${await storePending()}`, { headers: other })).body);
  });
});
