import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';

const VIN = ALPHA_VINS[0];
const SPACED = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe.each(DATABASE_KINDS)('GET /vehicle-commands on %s', (kind) => {
  let svc: TestService;
  let dispatch: CommandClient;
  let auth: Record<string, string>;
  let reportsAuth: Record<string, string>;
  const sent: string[] = [];

  beforeAll(async () => {
    svc = await startTestService(kind);
    await svc.useSimulatedCloud();
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    dispatch = commandClient(svc, token, SECRETS.alphaDispatch.sign);
    auth = { authorization: `Bearer ${token}` };
    reportsAuth = { authorization: `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  const list = (query = '', headers = auth) => svc.request('GET', `/vehicle-commands${query}`, { headers });

  it('when the application has sent nothing, then an empty page without a cursor', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null });
  });

  it('when commands were sent, then they are listed newest first as GET /vehicle-command reads them, with their creation time', async () => {
    for (const command of ['diagnostics', 'enable_ignition', 'diagnostics']) {
      const res = await dispatch.send({ vin: VIN, command });
      expect(res.status).toBe(200);
      sent.unshift(res.body.id);
    }
    // Two commands in the same millisecond still page in a stable order (by id within an instant).
    const same = await dispatch.send({ vin: VIN, command: 'disable_ignition' });
    sent.unshift(same.body.id);
    svc.clock.advance(1000);
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    const ids = res.body.data.map((c: { id: string }) => c.id);
    expect(new Set(ids)).toEqual(new Set(sent));
    expect(res.body.data).toHaveLength(4);
    for (const item of res.body.data) {
      expect(Object.keys(item)).toEqual(['id', 'vin', 'command', 'status', 'detail', 'created', 'updated']);
      expect(item.created).toMatch(SPACED);
      expect((await dispatch.status(item.id)).body).toEqual({
        id: item.id, vin: item.vin, command: item.command, status: item.status, detail: item.detail, updated: item.updated,
      });
    }
    const statuses = res.body.data.map((c: { command: string; status: string }) => `${c.command}:${c.status}`).sort();
    expect(statuses).toEqual(['diagnostics:Pending', 'diagnostics:Pending', 'disable_ignition:Confirmation', 'enable_ignition:Confirmation']);
    const created = res.body.data.map((c: { created: string }) => c.created);
    expect(created).toEqual([...created].sort().reverse());
  });

  it('when reading page by page, then every command appears once, in the order of the whole list', async () => {
    const whole = (await list()).body.data.map((c: { id: string }) => c.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: { data: { id: string }[]; next_cursor: string | null } } = await list(`?limit=1${cursor ? `&before=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((c) => c.id));
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(whole);
    const two = await list('?limit=2');
    expect(two.body.next_cursor).toBe(two.body.data[1].id);
  });

  it('when filtered by VIN, then only that vehicle\'s commands', async () => {
    expect((await list(`?vin=${VIN}`)).body.data).toHaveLength(4);
    expect((await list(`?vin=${ALPHA_VINS[1]}`)).body).toEqual({ data: [], next_cursor: null });
  });

  it('when another application of the same company lists, then it sees none of them, and cannot page from their ids', async () => {
    expect((await list('', reportsAuth)).body).toEqual({ data: [], next_cursor: null });
    const res = await list(`?before=${sent[0]}`, reportsAuth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Invalid cursor: use a next_cursor of this application's commands." });
  });

  it.each([
    ['?limit=0', 'limit must be an integer from 1 to 100.'],
    ['?limit=101', 'limit must be an integer from 1 to 100.'],
    ['?limit=abc', 'limit must be an integer from 1 to 100.'],
    ['?limit=-1', 'limit must be an integer from 1 to 100.'],
    ['?vin=short', 'vin must be a 17-character VIN.'],
    ['?before=not-a-uuid', "Invalid cursor: use a next_cursor of this application's commands."],
    ['?before=00000000-0000-4000-8000-000000000000', "Invalid cursor: use a next_cursor of this application's commands."],
    ['?limit=1&limit=2', 'Invalid request: querystring.limit must be string.'],
  ])('when the query is %s, then 400 %s', async (query, detail) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
  });

  it('when GET /vehicle-command has no id, then it still answers the interface\'s text (the new path is a different one)', async () => {
    const res = await svc.request('GET', '/vehicle-command', { headers: auth });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Invalid command ID. Command ID must be a string. At least one command ID is required.' });
  });

  it('when there is no token, then 401', async () => {
    expect((await list('', {})).status).toBe(401);
  });
});
