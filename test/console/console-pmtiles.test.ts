import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';
import { addPerson, TEST_CONSOLE_USERS } from '../support/console-people.js';

describe('a .pmtiles console basemap', () => {
  let svc: TestService;
  let folder: string;
  const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'pmtiles-'));
    writeFileSync(join(folder, 'brazil.pmtiles'), bytes);
    writeFileSync(join(folder, 'secret.txt'), 'not for the browser');
    svc = await startTestService('sqlite', undefined, {
      http: { console: { sessions: { idleMs: 60_000, maxMs: 600_000 }, basemap: { kind: 'pmtiles', file: join(folder, 'brazil.pmtiles'), attribution: '© OSM' }, users: TEST_CONSOLE_USERS } },
    });
  });
  afterAll(async () => {
    await svc?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('when the map reads a range of the archive, then 206 with exactly those bytes', async () => {
    const res = await fetch(`${svc.url}/console/basemap/brazil.pmtiles`, { headers: { range: 'bytes=100-227' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 100-227/${bytes.length}`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes.subarray(100, 228));
  });

  it('when anything else in its folder is asked for, then it is not served', async () => {
    for (const path of ['/console/basemap/secret.txt', '/console/basemap/..%2Fsecret.txt', '/console/basemap/%2e%2e/secret.txt']) {
      const text = await (await fetch(`${svc.url}${path}`)).text();
      expect(text).not.toContain('not for the browser');
    }
  });

  it('when a user signs in, then the session says where the basemap is, not where the file is', async () => {
    const person = await addPerson(svc, 'alpha', 'viewer');
    const res = await svc.request('POST', '/console/session', { json: { email: person.email, password: person.password }, headers: { 'x-telematics-console': '1' } });
    expect(res.body.basemap).toEqual({ kind: 'pmtiles', url: '/console/basemap/brazil.pmtiles', attribution: '© OSM' });
    expect(res.text).not.toContain(folder);
  });
});
