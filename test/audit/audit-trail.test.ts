/**
 * The audit trail through the real server and database: registry changes from the fleet file,
 * API changes (geofences, alert rules) and commands (created, confirmed, finished) recorded with
 * who did them; GET /audit paged and filtered, one company never seeing another's; and
 * `admin audit verify` finding a row edited behind the service's back.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditTrail } from '../../src/audit/verify-audit-trail.js';
import { appendAuditEntries } from '../../src/store/audit-queries.js';
import { setApplicationScopes } from '../../src/registry/manage-applications.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { cli } from '../support/in-process-cli.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { commandClient, type CommandClient } from '../support/command-client.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { until } from '../support/until.js';

const VIN = ALPHA_VINS[0];
const FENCE = { name: 'Depot', geometry: { type: 'Point', coordinates: [-46.63, -23.55] }, radius_m: 200 };

describe.each(DATABASE_KINDS)('audit trail on %s', (kind) => {
  let svc: TestService;
  let dispatch: CommandClient;
  let alpha: Record<string, string>;
  let beta: Record<string, string>;
  const audit = (query = '', headers = alpha) => svc.request('GET', `/audit${query}`, { headers });

  beforeAll(async () => {
    svc = await startTestService(kind);
    await svc.useSimulatedCloud();
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    dispatch = commandClient(svc, token, SECRETS.alphaDispatch.sign);
    alpha = { authorization: `Bearer ${token}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  it('when the fleet was applied, then the company\'s chain records its company, applications and vehicles as created by the operator', async () => {
    const res = await audit('?limit=500');
    expect(res.status, res.text).toBe(200);
    const actions = res.body.data.map((e: { action: string; target: string }) => `${e.action} ${e.target}`);
    expect(actions).toContain('company.created alpha');
    expect(actions).toContain(`vehicle.created ${VIN}`);
    expect(actions).toContain('application.created alpha-dispatch');
    expect(res.body.data.every((e: { actor: unknown }) => JSON.stringify(e.actor) === JSON.stringify({ kind: 'operator', id: 'cli' }))).toBe(true);
    // Another company's vehicles are not in alpha's chain.
    expect(actions.some((a: string) => a.includes('beta'))).toBe(false);
  });

  it('when an application changes a geofence and an alert rule and sends a command, then each is an entry naming it, newest first', async () => {
    const fence = await svc.request('POST', '/geofences', { headers: alpha, json: FENCE });
    expect(fence.status).toBe(201);
    expect((await svc.request('DELETE', `/geofences/${fence.body.id}`, { headers: alpha })).status).toBe(204);
    const rule = await svc.request('POST', '/alert-rules', { headers: alpha, json: { name: 'Speeding', kind: 'overspeed', threshold: 90 } });
    expect(rule.status).toBe(201);
    const sent = await dispatch.send({ vin: VIN, command: 'diagnostics' });
    expect(sent.body.status).toBe('Pending');
    const first = await dispatch.send({ vin: VIN, command: 'disable_ignition' });
    expect(first.body.status).toBe('Confirmation');
    expect((await dispatch.send({ vin: VIN, command: 'disable_ignition', code: first.body.code })).body.status).toBe('Pending');

    const page = await audit('?limit=6');
    expect(page.body.data.map((e: { action: string }) => e.action)).toEqual([
      'command.confirmed', 'command.confirmation_requested', 'command.created', 'alert_rule.created', 'geofence.deleted', 'geofence.created',
    ]);
    const created = page.body.data[2];
    expect(created).toMatchObject({ actor: { kind: 'application', id: 'alpha-dispatch' }, target: VIN, outcome: 'Pending', details: { command_id: sent.body.id, command: 'diagnostics' } });
    expect(created.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?-03:00$/);
    expect(page.body.data[5]).toMatchObject({ target: fence.body.id, outcome: 'success' });
    // Chained: each entry's prev_hash is the hash of the one below it.
    for (let i = 0; i < 5; i += 1) expect(page.body.data[i].prev_hash).toBe(page.body.data[i + 1].hash);
    expect(page.body.has_more).toBe(true);
    expect(page.body.next_cursor).toBe(String(page.body.data[5].seq));
  });

  it('when a command ends, then its outcome is an entry of the service in the same chain', async () => {
    await until('a command finished', async () => {
      svc.clock.advance(1000);
      await svc.worker.runOnce();
      return (await audit('?action=command.finished')).body.data.length >= 1;
    }, 15_000);
    const finished = (await audit('?action=command.finished')).body.data.at(-1);
    expect(finished).toMatchObject({ actor: { kind: 'system', id: 'service' }, target: VIN, details: { command: expect.any(String) } });
    expect(['Success', 'Error']).toContain(finished.outcome);
  });

  it('when paged with before, filtered by action prefix, actor or target, then only those entries; another company sees none of them', async () => {
    const newest = (await audit('?limit=2')).body;
    const older = (await audit(`?limit=2&before=${newest.next_cursor}`)).body;
    expect(older.data[0].seq).toBe(Number(newest.next_cursor) - 1);
    const commands = (await audit('?action=command.')).body.data;
    expect(commands.length).toBeGreaterThanOrEqual(3);
    expect(commands.every((e: { action: string }) => e.action.startsWith('command.'))).toBe(true);
    expect((await audit('?actor=alpha-dispatch')).body.data.every((e: { actor: { id: string } }) => e.actor.id === 'alpha-dispatch')).toBe(true);
    expect((await audit(`?target=${VIN}&action=vehicle.created`)).body.data).toHaveLength(1);
    expect((await audit('?since=2020-01-01&until=2020-01-02')).body.data).toEqual([]);
    const theirs = (await audit('?limit=500', beta)).body.data;
    expect(theirs.some((e: { actor: { id: string } }) => e.actor.id === 'alpha-dispatch')).toBe(false);
    expect(theirs.some((e: { target: string }) => e.target === VIN)).toBe(false);
  });

  it('when an application registers and removes a webhook endpoint, then both are entries naming the endpoint, without its secret', async () => {
    const hook = await svc.request('POST', '/webhook-endpoints', { headers: alpha, json: { url: 'http://127.0.0.1:9/hook', event_types: ['*'] } });
    expect(hook.status, hook.text).toBe(201);
    expect((await svc.request('DELETE', `/webhook-endpoints/${hook.body.id}`, { headers: alpha })).status).toBe(204);
    const entries = (await audit('?action=webhook_endpoint.')).body.data;
    expect(entries.map((e: { action: string; target: string }) => `${e.action} ${e.target}`)).toEqual([`webhook_endpoint.deleted ${hook.body.id}`, `webhook_endpoint.created ${hook.body.id}`]);
    expect(JSON.stringify(entries)).not.toContain(hook.body.secret);
  });

  it('when the operator changes an application\'s scopes, then the entry says from what to what', async () => {
    await setApplicationScopes(svc.store.db, 'alpha-reports', ['vehicles:read', 'trips:read'], Date.now());
    const [entry] = (await audit('?action=application.scopes_changed')).body.data;
    expect(entry).toMatchObject({ actor: { kind: 'operator', id: 'cli' }, target: 'alpha-reports', details: { scopes: 'vehicles:read trips:read', previous: '*' } });
  });

  it('when the query is malformed, then 400 with the catalogue\'s text, and without a token 401', async () => {
    expect((await audit('?limit=0')).body).toEqual({ detail: 'limit must be an integer from 1 to 500 entries.' });
    expect((await audit('?limit=abc')).status).toBe(400);
    expect((await audit('?before=-1')).body).toEqual({ detail: 'Invalid cursor: use a next_cursor of this audit trail.' });
    expect((await audit('?since=yesterday')).status).toBe(400);
    expect((await svc.request('GET', '/audit')).status).toBe(401);
  });

  it('when thousands of entries are appended at once (a large fleet file), then every one lands in order and the chain holds', async () => {
    const drafts = Array.from({ length: 3500 }, (_, i) => ({
      companyId: 'bulk', actor: { kind: 'operator' as const, id: 'cli' }, action: 'vehicle.created', target: `BULK${i}`, outcome: 'success' as const, details: {},
    }));
    await appendAuditEntries(svc.store.db, drafts, Date.now());
    const count = await svc.store.db.selectFrom('audit_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('chain', '=', 'bulk').executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(3500);
    expect((await verifyAuditTrail(svc.store.db)).breaks).toEqual([]);
  });

  it('when the service writes to an entry, then the database refuses: entries are append-only', async () => {
    await expect(sql`update audit_entries set outcome = 'failure'`.execute(svc.store.db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_entries`.execute(svc.store.db)).rejects.toThrow(/append-only/);
  });

  it('when someone drops the guard and edits a row, then verification names that chain and entry, and the CLI exits non-zero', async () => {
    const before = await verifyAuditTrail(svc.store.db);
    expect(before.breaks).toEqual([]);
    expect(before.entries).toBeGreaterThan(10);
    const intact = await cli(['admin', 'audit', 'verify', '--database', svc.databaseUrl, '--json']);
    expect(intact.code, intact.err).toBe(0);
    expect(JSON.parse(intact.out)).toMatchObject({ ok: true, breaks: [] });

    const victim = (await audit('?action=geofence.created')).body.data[0];
    if (kind === 'postgres') await sql`alter table audit_entries disable trigger audit_entries_append_only`.execute(svc.store.db);
    else await sql`drop trigger audit_entries_no_update`.execute(svc.store.db);
    await sql`update audit_entries set actor_id = 'someone-else' where chain = 'alpha' and seq = ${victim.seq}`.execute(svc.store.db);

    const after = await verifyAuditTrail(svc.store.db);
    expect(after.breaks).toEqual([{ chain: 'alpha', seq: victim.seq, reason: expect.stringContaining('changed') }]);
    const broken = await cli(['admin', 'audit', 'verify', '--database', svc.databaseUrl]);
    expect(broken.code).toBe(1);
    expect(broken.out).toContain(`chain alpha: entry ${victim.seq} is broken`);
    expect(broken.err).toContain(`first at chain alpha entry ${victim.seq}`);
  });
});
