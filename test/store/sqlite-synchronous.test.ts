/**
 * `--sqlite-synchronous full` reaches the database: the service's own connection syncs every
 * commit (`PRAGMA synchronous` reads 2), and the default stays NORMAL (1). The pragma is a
 * connection's, not the file's, so it is read on the connection the setting opened.
 */
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/logger.js';
import { generateKeyringDocument } from '../../src/security/keyring.js';
import { startService } from '../../src/service.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

describe('SQLite\'s synchronous setting', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => { await database?.drop(); });

  const synchronousOf = async (store: ReturnType<typeof openStore>) =>
    (await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db)).rows[0]!.synchronous;

  it('when a store is opened with full, then PRAGMA synchronous reads 2 on its connection, and 1 without it', async () => {
    database = await createTestDatabase('sqlite');
    const full = openStore(database.url, { poolSize: 1, sqliteSynchronous: 'full' });
    const normal = openStore(database.url, { poolSize: 1 });
    try {
      expect(await synchronousOf(full)).toBe(2);
      expect(full.sqliteSynchronous).toBe('full');
      expect(await synchronousOf(normal)).toBe(1);
      expect(normal.sqliteSynchronous).toBe('normal');
    } finally {
      await full.close();
      await normal.close();
    }
  });

  it('when the service is started with TELEMATICS_SQLITE_SYNCHRONOUS=FULL, then its connection reads it back and says so when the database is ready', async () => {
    database = await createTestDatabase('sqlite');
    const keys = generateKeyringDocument();
    const env = { TELEMATICS_SQLITE_SYNCHRONOUS: 'FULL', TELEMATICS_JWT_KEYS: keys.jwt[0]!.secret, TELEMATICS_MASTER_KEYS: keys.master[0]!.key };
    const config = loadConfig({ database: database.url, port: 0, sim: false }, env);
    expect(config.sqliteSynchronous).toBe('full');
    const lines: string[] = [];
    const service = await startService(config, { logger: createLogger('info', new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } })) });
    try {
      const ready = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'database ready');
      expect(ready).toMatchObject({ database: `sqlite:${database.url}`, synchronous: 'full' });
    } finally {
      await service.close();
    }
  });

  it('when the setting is anything but normal or full, then the configuration is refused', () => {
    expect(() => loadConfig({ sqliteSynchronous: 'off' }, {})).toThrow(/--sqlite-synchronous must be one of normal, full, got "off"/);
  });
});
