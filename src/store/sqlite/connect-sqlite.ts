import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../schema.js';
import { sqliteCapabilities } from '../dialect.js';
import type { DatabaseConnection } from '../connection.js';
import { withStatementCache } from './statement-cache.js';
import { preparePrivateDatabaseFile } from './private-database-file.js';
import { RegistryChanges, registryWritesPlugin } from '../registry-changes.js';
import { checkpointInBackground } from './background-checkpoints.js';

/** `PRAGMA synchronous` answers a number: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
const SYNCHRONOUS_NAMES: readonly string[] = ['off', 'normal', 'full', 'extra'];

/** How often another connection's commits are looked for: asking costs a few microseconds. */
const PROBE_INTERVAL_MS = 1;

/**
 * `data_version` moves whenever another connection (a CLI command, another process) commits to
 * the file; this connection's own writes are seen by the Kysely plugin instead. Asked at most
 * once a millisecond, so such a commit is seen within a millisecond.
 */
function sqliteRegistryChanges(sqlite: BetterSqlite3.Database): RegistryChanges {
  const version = sqlite.prepare('pragma data_version').pluck();
  let last = version.get();
  let probedAt = performance.now();
  const changes = new RegistryChanges(() => {
    const t = performance.now();
    if (t - probedAt < PROBE_INTERVAL_MS) return false;
    probedAt = t;
    const now = version.get();
    if (now === last) return false;
    last = now;
    return true;
  });
  changes.setLive(true);
  return changes;
}

/**
 * Opens (creating if needed) a SQLite file in WAL mode: readers never wait for the writer, and
 * `busy_timeout` lets a CLI command and the running service share the file. The file, its WAL and
 * SHM are 0600 and the folders created for them 0700. A long-running process (the service) asks for
 * `backgroundCheckpoints`: WAL checkpoints then run in a thread of their own, not on its commits.
 * `synchronous = NORMAL` by default: a commit survives the process crashing, not the machine
 * losing power; syncing each commit on the event loop (`FULL`, `--sqlite-synchronous full`)
 * measured ×0.34–0.38 the command creations on a loaded machine, ×0.7 on a quiet one
 * (README, "What a commit survives").
 */
export function connectSqlite(file: string, watchRegistry = false, backgroundCheckpoints = false, synchronous: 'normal' | 'full' = 'normal'): DatabaseConnection {
  const onDisk = file !== ':memory:' && file !== ''; // '' is SQLite's temporary database
  if (onDisk) preparePrivateDatabaseFile(file);
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(synchronous === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const registryChanges = watchRegistry ? sqliteRegistryChanges(sqlite) : undefined;
  const checkpoints = backgroundCheckpoints && onDisk ? checkpointInBackground(sqlite, file) : undefined;
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    plugins: registryChanges ? [registryWritesPlugin(registryChanges)] : [],
  });
  return {
    db,
    ...(registryChanges ? { registryChanges } : {}),
    capabilities: sqliteCapabilities,
    description: `sqlite:${file}`,
    sqliteSynchronous: SYNCHRONOUS_NAMES[Number(sqlite.pragma('synchronous', { simple: true }))] ?? 'unknown',
    close: async () => {
      await checkpoints?.close();
      await db.destroy();
    },
  };
}
