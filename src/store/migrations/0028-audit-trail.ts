import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialect.js';

/**
 * The audit trail (src/domain/audit-chain.ts): entries numbered per chain (a company's, or the
 * service-wide `-`), each hashed over the one before; `audit_chains` holds each chain's head, locked
 * while entries are added, so two writers never give out one number. The database refuses to
 * change or delete an entry (a trigger on each dialect): the service only ever appends, and
 * someone who drops the trigger to edit a row is caught by `admin audit verify`.
 */
export function auditTrailMigration(capabilities: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createTable('audit_entries')
        .addColumn('chain', 'varchar(64)', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('actor_kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('actor_id', 'varchar(320)', (c) => c.notNull())
        .addColumn('action', 'varchar(64)', (c) => c.notNull())
        .addColumn('target', 'varchar(200)')
        .addColumn('outcome', 'varchar(32)', (c) => c.notNull())
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('prev_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('hash', 'varchar(64)', (c) => c.notNull())
        .addPrimaryKeyConstraint('audit_entries_pk', ['chain', 'seq'])
        .execute();
      await db.schema.createIndex('audit_entries_at').on('audit_entries').columns(['chain', 'at']).execute();
      await db.schema.createTable('audit_chains')
        .addColumn('chain', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'varchar(64)', (c) => c.notNull())
        .execute();
      if (capabilities.triggerBody === 'function') {
        await sql`create function audit_entries_append_only() returns trigger language plpgsql as $$
          begin raise exception 'audit entries are append-only'; end $$`.execute(db);
        await sql`create trigger audit_entries_append_only before update or delete on audit_entries
          for each row execute function audit_entries_append_only()`.execute(db);
      } else {
        await sql`create trigger audit_entries_no_update before update on audit_entries
          begin select raise(abort, 'audit entries are append-only'); end`.execute(db);
        await sql`create trigger audit_entries_no_delete before delete on audit_entries
          begin select raise(abort, 'audit entries are append-only'); end`.execute(db);
      }
    },
  };
}
