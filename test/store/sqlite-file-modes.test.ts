/**
 * The SQLite files hold every company's positions: only the service's user may read them,
 * whatever the umask, and a database left readable by an earlier version is tightened.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectSqlite } from '../../src/store/sqlite/connect-sqlite.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { DatabaseConnection } from '../../src/store/connection.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('SQLite file modes', () => {
  let root: string;
  let umask: number;
  const open: DatabaseConnection[] = [];

  beforeEach(() => {
    umask = process.umask();
    root = mkdtempSync(join(tmpdir(), 'telematics-modes-'));
    chmodSync(root, 0o755); // a folder the operator chose, readable by others like /tmp or ./
  });
  afterEach(async () => {
    process.umask(umask);
    await Promise.all(open.splice(0).map((s) => s.close()));
    rmSync(root, { recursive: true, force: true });
  });

  it.each([['022', 0o022], ['000', 0o000]] as const)('when a new database is created under umask %s, then the folders made for it are 0700 and the database, WAL and SHM 0600', async (_label, mask) => {
    process.umask(mask);
    const file = join(root, 'var', 'telematics', 'telematics.db');
    const store = connectSqlite(file);
    open.push(store);
    await migrateToLatest(store); // writes, so the WAL and SHM exist while the connection is open

    expect(modeOf(join(root, 'var')).toString(8)).toBe('700');
    expect(modeOf(join(root, 'var', 'telematics')).toString(8)).toBe('700');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(`${path}: ${modeOf(path).toString(8)}`).toBe(`${path}: 600`);
    expect(modeOf(root).toString(8)).toBe('755');
  });

  it('when an existing database and its WAL and SHM are readable by others, then opening it makes them 0600 and leaves its folder alone', async () => {
    process.umask(0o022);
    const file = join(root, 'old.db');
    const earlier = new BetterSqlite3(file); // as an earlier version left it: 0644, WAL still there
    earlier.pragma('journal_mode = WAL');
    earlier.exec('create table t (x integer); insert into t values (1)');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) chmodSync(path, 0o644);
    try {
      const store = connectSqlite(file);
      open.push(store);
      await migrateToLatest(store);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(`${path}: ${modeOf(path).toString(8)}`).toBe(`${path}: 600`);
      expect(modeOf(root).toString(8)).toBe('755');
    } finally {
      earlier.close();
    }
  });

  it('when the database path is an existing folder, then opening fails and the folder keeps its mode', () => {
    expect(() => connectSqlite(root)).toThrow();
    expect(modeOf(root).toString(8)).toBe('755');
  });
});
