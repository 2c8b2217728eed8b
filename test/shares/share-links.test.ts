/**
 * Share links through the API and the public page, on both databases: creation and its refusals,
 * the position the page reads (the newest fix, what the plan allows), revocation and expiry
 * answering 410, listing and paging, the cap per vehicle, the audit entries, and that the link's
 * secret is kept only as a hash and never logged.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShareLink } from '../../src/shares/manage-share-links.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const SHARE_PAGE = '<!doctype html><title>share page of the test</title>';

describe.each(DATABASE_KINDS)('share links on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let beta: Record<string, string>;
  let dist: string;
  const tokens: string[] = [];

  beforeAll(async () => {
    // The console's build, as far as the share page needs it: its share.html.
    dist = mkdtempSync(join(tmpdir(), 'share-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dist, 'share.html'), SHARE_PAGE);
    svc = await startTestService(kind, undefined, {
      http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 12 * HOUR }, basemap: null, distDir: dist, users: { passwordHashCost: 12, passwordLinkLifetimeMs: HOUR, totpIssuer: 'T' } } },
    });
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
  });
  afterAll(async () => {
    await svc?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  async function create(json: unknown, headers = alpha) {
    const res = await svc.request('POST', '/share-links', { json, headers });
    if (res.status === 201) tokens.push(tokenOf(res.body.url));
    return res;
  }
  const tokenOf = (url: string) => /\/share\/([A-Za-z0-9_-]{43})$/.exec(url)![1]!;
  const position = (token: string) => svc.request('GET', `/share/${token}/position`, { headers: { accept: 'application/json' } });

  it('when a vehicle is shared, then the answer holds the link once, never cached, active for a day by default, made by the caller', async () => {
    const res = await create({ vin: ALPHA_VINS[0], label: '  Order 4411  ' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), vin: ALPHA_VINS[0], label: 'Order 4411', state: 'active',
      created_at: '2026-11-20T09:00:00-03:00', expires_at: '2026-11-21T09:00:00-03:00', revoked_at: null,
      created_by: { kind: 'application', id: 'alpha-dispatch' }, url: expect.stringMatching(new RegExp(`^${svc.url}/share/[A-Za-z0-9_-]{43}$`)),
    });
    const read = await svc.request('GET', `/share-links/${res.body.id}`, { headers: alpha });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...res.body, url: undefined });
    expect(Object.keys(read.body)).not.toContain('url');
  });

  it.each([
    [{ vin: ALPHA_VINS[0], expires_in: 299 }, 'Invalid request: body.expires_in must be >= 300.'],
    [{ vin: ALPHA_VINS[0], expires_in: 7 * 24 * 3600 + 1 }, 'Invalid request: body.expires_in must be <= 604800.'],
    [{ vin: ALPHA_VINS[0], expires_in: 3600.5 }, 'Invalid request: body.expires_in must be integer.'],
    [{ vin: ALPHA_VINS[0], label: 'x'.repeat(81) }, 'Invalid request: body.label must NOT have more than 80 characters.'],
    [{ vin: ALPHA_VINS[0], colour: 'red' }, 'Invalid request: body must NOT have additional properties.'],
    [{}, "Invalid request: body must have required property 'vin'."],
    [[ALPHA_VINS[0]], 'Invalid request: body must be object.'],
  ])('when the body is %j, then 400 naming the problem', async (json, detail) => {
    const res = await create(json);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { detail } });
  });

  it('when the vehicle is another company\'s, lacks positions, or the plan does not include them, then the interface\'s refusals', async () => {
    expect((await create({ vin: BETA_VINS[0] })).body).toEqual({ detail: 'VIN not found or unauthorized access.' });
    expect((await create({ vin: 'NOTAVIN' })).status).toBe(404);
    // othermotors provides vin and speed only; Beta's plan holds vin, date_time and speed.
    const noPositions = await create({ vin: ALPHA_VINS[2] });
    expect({ status: noPositions.status, body: noPositions.body }).toEqual({ status: 404, body: { detail: 'Unsupported datapoint for this vehicle.' } });
    const notInPlan = await create({ vin: BETA_VINS[0] }, beta);
    expect({ status: notInPlan.status, body: notInPlan.body }).toEqual({ status: 404, body: { detail: 'Datapoint not included in your package plan.' } });
  });

  it('when the link is opened, then its page is the share page, never cached, sent to no referrer; a link that does not exist is a 404 page', async () => {
    const { body } = await create({ vin: ALPHA_VINS[0] });
    const page = await svc.request('GET', `/share/${tokenOf(body.url)}`);
    expect(page.status).toBe(200);
    expect(page.text).toBe(SHARE_PAGE);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    for (const token of ['A'.repeat(43), 'short', `${'A'.repeat(43)}x`, '%00']) {
      const missing = await svc.request('GET', `/share/${token}`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('cache-control')).toBe('no-store');
      expect(missing.text).toContain('This link does not exist.');
      expect((await position(token)).body).toEqual({ detail: 'Share link not found.' });
    }
  });

  it('when the vehicle reports, then the page reads its newest fix (not a newer record without one), and nothing else: no speed, heading or VIN', async () => {
    const { body } = await create({ vin: ALPHA_VINS[0], label: 'Delivery' });
    const token = tokenOf(body.url);
    expect((await position(token)).body).toEqual({ label: 'Delivery', expires_at: '2026-11-21T09:00:00-03:00', position: null, basemap: null });
    await svc.ingest([
      { vin: ALPHA_VINS[0], date_time: iso(T0 - 5 * MIN), speed: 30, heading: 90, latitude: -23.55, longitude: -46.63, fuel_level: 40, odometer: 1200 },
      { vin: ALPHA_VINS[0], date_time: iso(T0 - 2 * MIN), speed: 42, heading: 180, latitude: -23.56, longitude: -46.64, fuel_level: 39 },
      { vin: ALPHA_VINS[0], date_time: iso(T0 - MIN), speed: 40, fuel_level: 39 },
    ]);
    const res = await position(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      label: 'Delivery', expires_at: '2026-11-21T09:00:00-03:00', basemap: null,
      position: { latitude: -23.56, longitude: -46.64, recorded_at: '2026-11-20T08:58:00-03:00' },
    });
    expect(res.text).not.toContain(ALPHA_VINS[0]);
  });

  it('when a link is revoked, then its page and position answer 410 at once, it is listed as revoked, and revoking again changes nothing', async () => {
    const { body } = await create({ vin: ALPHA_VINS[0], label: 'to revoke' });
    const token = tokenOf(body.url);
    expect((await position(token)).status).toBe(200);
    expect((await svc.request('DELETE', `/share-links/${body.id}`, { headers: alpha })).status).toBe(204);
    const gone = await position(token);
    expect({ status: gone.status, body: gone.body }).toEqual({ status: 410, body: { detail: 'This share link has expired or was revoked.' } });
    const page = await svc.request('GET', `/share/${token}`);
    expect(page.status).toBe(410);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('This link has expired or was revoked.');
    expect(page.text).toContain('Este link expirou ou foi revogado.');
    expect((await svc.request('DELETE', `/share-links/${body.id}`, { headers: alpha })).status).toBe(204);
    const read = await svc.request('GET', `/share-links/${body.id}`, { headers: alpha });
    expect(read.body).toMatchObject({ state: 'revoked', revoked_at: '2026-11-20T09:00:00-03:00' });
    const trail = await svc.request('GET', `/audit?target=${body.id}`, { headers: alpha });
    expect(trail.body.data.map((e: { action: string; actor: unknown; details: unknown }) => [e.action, e.actor, e.details])).toEqual([
      ['share_link.revoked', { kind: 'application', id: 'alpha-dispatch' }, { vin: ALPHA_VINS[0] }],
      ['share_link.created', { kind: 'application', id: 'alpha-dispatch' }, { vin: ALPHA_VINS[0], expires_at: '2026-11-21T09:00:00-03:00' }],
    ]);
  });

  it('when another company asks for a link, or an id is not one, then 404', async () => {
    const { body } = await create({ vin: ALPHA_VINS[0] });
    for (const [method, path] of [['GET', `/share-links/${body.id}`], ['DELETE', `/share-links/${body.id}`], ['GET', '/share-links/nope'], ['DELETE', '/share-links/nope']] as const) {
      const res = await svc.request(method, path, { headers: path.endsWith('nope') ? alpha : beta });
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { detail: 'Share link not found.' } });
    }
    expect((await position(tokenOf(body.url))).status).toBe(200);
  });

  it('when a link\'s time is up, then it answers 410 and is listed as expired; the longest a link may live is 7 days', async () => {
    const short = await create({ vin: ALPHA_VINS[0], expires_in: 300 });
    const week = await create({ vin: ALPHA_VINS[0], expires_in: 7 * 24 * 3600 });
    expect(week.body.expires_at).toBe('2026-11-27T09:00:00-03:00');
    svc.clock.advance(300_000);
    try {
      expect((await position(tokenOf(short.body.url))).status).toBe(410);
      expect((await svc.request('GET', `/share/${tokenOf(short.body.url)}`)).status).toBe(410);
      expect((await svc.request('GET', `/share-links/${short.body.id}`, { headers: alpha })).body.state).toBe('expired');
      expect((await position(tokenOf(week.body.url))).status).toBe(200);
    } finally {
      svc.clock.advance(-300_000);
    }
  });

  it('when the vehicle is no longer the company\'s, then its links answer 410', async () => {
    const { body } = await create({ vin: ALPHA_VINS[1] });
    await svc.store.db.updateTable('vehicles').set({ company_id: 'beta' }).where('vin', '=', ALPHA_VINS[1]).execute();
    try {
      expect((await position(tokenOf(body.url))).status).toBe(410);
      expect((await svc.request('GET', `/share/${tokenOf(body.url)}`)).status).toBe(410);
    } finally {
      await svc.store.db.updateTable('vehicles').set({ company_id: 'alpha' }).where('vin', '=', ALPHA_VINS[1]).execute();
    }
  });

  it('when eight creations race for the last open place of a vehicle, then one gets it and the others 409', async () => {
    const vin = ALPHA_VINS[1];
    const open = (await svc.request('GET', `/share-links?vin=${vin}&state=active&limit=200`, { headers: alpha })).body.data.length as number;
    for (let i = open; i < 49; i += 1) await create({ vin, expires_in: 600 });
    // Straight to the use case, each on its own connection of the pool: HTTP would space them out.
    const deps = { store: svc.store, clock: svc.clock };
    const raced = await Promise.allSettled(Array.from({ length: 8 }, () => createShareLink(deps, 'alpha', { vin, expires_in: 600 }, { kind: 'application', id: 'alpha-dispatch' })));
    expect(raced.map((r) => (r.status === 'fulfilled' ? 'created' : (r.reason as Error).message)).sort())
      .toEqual(['A vehicle may have at most 50 open share links.', ...Array(6).fill('A vehicle may have at most 50 open share links.'), 'created'].sort());
    const after = (await svc.request('GET', `/share-links?vin=${vin}&state=active&limit=200`, { headers: alpha })).body.data.length;
    expect(after).toBe(50);
    for (const link of (await svc.request('GET', `/share-links?vin=${vin}&state=active&limit=200`, { headers: alpha })).body.data as { id: string }[]) {
      await svc.request('DELETE', `/share-links/${link.id}`, { headers: alpha });
    }
  });

  it('when links are listed, then newest first, a page at a time, filtered by vehicle and state; a bad limit or cursor is 400', async () => {
    svc.clock.advance(1000);
    const newest = (await create({ vin: ALPHA_VINS[1], label: 'newest' }).finally(() => svc.clock.advance(-1000))).body;
    const all = (await svc.request('GET', '/share-links?limit=200', { headers: alpha })).body.data as { id: string; state: string; vin: string }[];
    expect(all.length).toBeGreaterThan(5);
    expect(all[0]!.id).toBe(newest.id);
    expect(all.map((l) => l.id)).toEqual([...all.map((l) => l.id)].sort().reverse());
    const first = await svc.request('GET', '/share-links?limit=2', { headers: alpha });
    expect(first.body.data.map((l: { id: string }) => l.id)).toEqual(all.slice(0, 2).map((l) => l.id));
    const second = await svc.request('GET', `/share-links?limit=2&before=${first.body.next_cursor}`, { headers: alpha });
    expect(second.body.data.map((l: { id: string }) => l.id)).toEqual(all.slice(2, 4).map((l) => l.id));
    const revoked = await svc.request('GET', '/share-links?state=revoked&limit=200', { headers: alpha });
    expect(revoked.body.data.map((l: { id: string }) => l.id)).toEqual(all.filter((l) => l.state === 'revoked').map((l) => l.id));
    const ofOne = await svc.request('GET', `/share-links?vin=${ALPHA_VINS[1]}&limit=200`, { headers: alpha });
    expect(ofOne.body.data[0].id).toBe(newest.id);
    expect(new Set(ofOne.body.data.map((l: { vin: string }) => l.vin))).toEqual(new Set([ALPHA_VINS[1]]));
    expect((await svc.request('GET', '/share-links', { headers: beta })).body).toEqual({ data: [], next_cursor: null });
    for (const query of ['limit=0', 'limit=201', 'limit=1.5', 'limit=x', 'before=zzz', 'state=gone']) {
      const res = await svc.request('GET', `/share-links?${query}`, { headers: alpha });
      expect(res.status, query).toBe(400);
      expect(res.body.detail, query).toMatch(/^Invalid request: /);
    }
  });

  it('when a vehicle has 50 open links, then the next is refused with 409; a revoked one makes room', async () => {
    const open = (await svc.request('GET', `/share-links?vin=${ALPHA_VINS[0]}&state=active&limit=200`, { headers: alpha })).body.data.length as number;
    let last: { id: string } | undefined;
    for (let i = open; i < 50; i += 1) last = (await create({ vin: ALPHA_VINS[0], expires_in: 600 })).body;
    const refused = await create({ vin: ALPHA_VINS[0] });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 409, body: { detail: 'A vehicle may have at most 50 open share links.' } });
    await svc.request('DELETE', `/share-links/${last!.id}`, { headers: alpha });
    expect((await create({ vin: ALPHA_VINS[0] })).status).toBe(201);
  });

  it('then no link\'s secret is in any table or any log line: only its SHA-256 is kept', async () => {
    expect(tokens.length).toBeGreaterThan(50);
    const tables = ['share_links', 'audit_entries'];
    const dump = (await Promise.all(tables.map(async (t) => JSON.stringify((await sql`select * from ${sql.table(t)}`.execute(svc.store.db)).rows)))).join('\n');
    const logs = svc.logs.join('\n');
    for (const token of tokens) {
      expect(dump.includes(token)).toBe(false);
      expect(logs.includes(token)).toBe(false);
    }
    expect(logs).toContain('"route":"/share/:token/position"');
  });
});

describe('the share page without the console', () => {
  it('when the console is off, then a link still opens (its position, and its page where the console is built); a build without share.html answers 503, not a failed start', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'share-old-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>console built before share links</title>');
    const off = await startTestService('sqlite');
    const old = await startTestService('sqlite', undefined, {
      http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 12 * HOUR }, basemap: null, distDir: dist, users: { passwordHashCost: 12, passwordLinkLifetimeMs: HOUR, totpIssuer: 'T' } } },
    });
    try {
      for (const svc of [off, old]) {
        const headers = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
        const created = await svc.request('POST', '/share-links', { json: { vin: ALPHA_VINS[0] }, headers });
        const token = /\/share\/([A-Za-z0-9_-]{43})$/.exec(created.body.url)![1]!;
        const position = await svc.request('GET', `/share/${token}/position`);
        expect(position.status).toBe(200);
        expect(position.headers.get('referrer-policy')).toBe('no-referrer');
        expect((await svc.request('GET', '/console/')).status).toBe(svc === off ? 404 : 200);
      }
      const { body } = await old.request('POST', '/share-links', { json: { vin: ALPHA_VINS[0] }, headers: { authorization: `Bearer ${await old.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` } });
      const page = await old.request('GET', new URL(body.url).pathname);
      expect({ status: page.status, text: page.text }).toEqual({ status: 503, text: 'The console is not built: run `npm run build`.' });
    } finally {
      await Promise.all([off.close(), old.close()]);
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('when one address polls links faster than --share-rate-address, then 429 with Retry-After before any lookup', async () => {
    const svc = await startTestService('sqlite', undefined, { rateLimits: { sharePerAddress: { limit: 3, windowMs: MIN } } });
    try {
      const headers = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
      const { body } = await svc.request('POST', '/share-links', { json: { vin: ALPHA_VINS[0] }, headers });
      const path = `${new URL(body.url).pathname}/position`;
      const statuses = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await svc.request('GET', path)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await svc.request('GET', `/share/${'A'.repeat(43)}`);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      svc.clock.advance(MIN);
      expect((await svc.request('GET', path)).status).toBe(200);
    } finally {
      await svc.close();
    }
  });
});
