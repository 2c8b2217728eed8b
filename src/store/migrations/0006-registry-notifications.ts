import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialect.js';
import { REGISTRY_CHANNEL, REGISTRY_TABLES } from '../registry-changes.js';

/**
 * PostgreSQL: every statement that changes a registry table notifies the registry channel, so
 * instances caching registry rows drop them whoever made the change (the operator's CLI, another
 * instance). SQLite has no notifications and no registry cache: nothing to do.
 */
export function registryNotificationsMigration(capabilities: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (!capabilities.notifications) return;
      await sql`create or replace function telematics_registry_changed() returns trigger language plpgsql as $$
        begin
          perform pg_notify(${sql.lit(REGISTRY_CHANNEL)}, tg_table_name);
          return null;
        end $$`.execute(db);
      for (const table of REGISTRY_TABLES) {
        await sql`create trigger ${sql.id(`${table}_registry_changed`)} after insert or update or delete or truncate on ${sql.table(table)}
          for each statement execute function telematics_registry_changed()`.execute(db);
      }
    },
  };
}
