import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { defaultKeysFile } from '../config/derived-settings.js';
import { loadConfig, type FlagValues } from '../config/load-config.js';
import { SETTINGS, type ServiceConfig } from '../config/settings.js';
import { loadKeyring } from '../security/load-keyring.js';
import type { Keyring } from '../security/keyring.js';
import { migrateToLatest, type MigrationReport } from '../store/migrate.js';
import { unreachableMessage } from '../store/classify-error.js';
import { isPostgresUrl } from '../domain/database-url.js';
import { openStore } from '../store/open-store.js';
import type { StoreConnection } from '../store/connection.js';
import { processOutput, UsageError, type Output } from './output.js';

/** Options every command that touches the database accepts, as `serve` does. */
export function withStoreOptions(command: Command): Command {
  return command
    .option('--database <url>', 'SQLite file path or postgres:// URL (env DATABASE_URL)')
    .option('--keys-file <path>', 'keys file (env TELEMATICS_KEYS_FILE)')
    .option('--json', 'machine-readable output');
}

export interface StoreContext {
  readonly config: ServiceConfig;
  readonly store: StoreConnection;
  readonly output: Output;
  /** What opening the database migrated (the `migrate` command reports it). */
  readonly migrated: MigrationReport;
  keyring(): Keyring;
}

/**
 * Opens the configured database (migrated) for one CLI command and closes it afterwards. Only
 * `migrate` may create a SQLite file: a mistyped --database for an admin command is an error,
 * not a new empty database.
 */
export async function withStore<T>(
  opts: Record<string, unknown>, run: (ctx: StoreContext) => Promise<T>, { create = false }: { create?: boolean } = {},
): Promise<T> {
  // Commander keys a value by its flag (`--trip-retention` is `tripRetention`), the settings by key (`tripRetentionMs`).
  const flags: FlagValues = Object.fromEntries(SETTINGS.flatMap((s) => {
    const value = s.flag === undefined ? undefined : opts[new Option(s.flag).attributeName()];
    return value === undefined ? [] : [[s.key, value as string]];
  }));
  const config = loadConfig(flags);
  if (!create && !isPostgresUrl(config.database) && !existsSync(config.database)) {
    throw new UsageError(`database ${config.database} does not exist (create it with \`telematics migrate --database ${config.database}\` or \`telematics serve\`)`);
  }
  const store = openStore(config.database, { poolSize: 2, sqliteSynchronous: config.sqliteSynchronous });
  try {
    let migrated: MigrationReport;
    try {
      migrated = await migrateToLatest(store);
    } catch (error) {
      const message = unreachableMessage(error, store.description);
      throw message === undefined ? error : new UsageError(message);
    }
    let keyring: Keyring | undefined;
    return await run({
      config,
      store,
      migrated,
      output: processOutput(opts.json === true),
      keyring: () => {
        keyring ??= loadKeyring({
          jwtKeys: config.jwtKeys, masterKeys: config.masterKeys, keysFile: config.keysFile,
          keysFileIsDefault: config.keysFile !== undefined && config.keysFile === defaultKeysFile(config.database),
        }).keyring;
        return keyring;
      },
    });
  } finally {
    await store.close();
  }
}
