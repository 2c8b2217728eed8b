/**
 * Holds every write to the commands table from a connection of the test's own, so that a service
 * process which has just been answered by the automaker cannot store the command's status URL
 * until `release`: the window a crash test kills the service in, made deterministic. Reads go on.
 * - SQLite: `BEGIN IMMEDIATE` takes the database's write lock; the service's write waits in its
 *   busy timeout (5 s), with its event loop blocked.
 * - PostgreSQL: `LOCK TABLE commands IN SHARE MODE` in an open transaction conflicts with every
 *   insert and update of the table. On PostgreSQL the service answers `Pending` before that
 *   commit (create-command.ts), so it answers while held.
 * `release` ends the hold. On PostgreSQL it first ends the other sessions of the database: the
 * backend of a killed service waits on the lock without noticing its client is gone, and would
 * otherwise run (and, outside a transaction, commit) its update the moment the lock is let go.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { DatabaseKind } from './databases.js';

export interface HeldCommandWrites {
  release(): Promise<void>;
}

export async function holdCommandWrites(kind: DatabaseKind, databaseUrl: string): Promise<HeldCommandWrites> {
  if (kind === 'sqlite') {
    const sqlite = new BetterSqlite3(databaseUrl, { timeout: 5000 });
    sqlite.exec('BEGIN IMMEDIATE');
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        sqlite.exec('ROLLBACK');
        sqlite.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE commands IN SHARE MODE');
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
        await client.query('ROLLBACK');
      } finally {
        await client.end();
      }
    },
  };
}

/** The sessions of the service's database that wait on a lock (PostgreSQL): a write the hold stopped. */
export async function writesWaitingOnLock(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
