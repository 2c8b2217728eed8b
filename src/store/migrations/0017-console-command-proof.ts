import type { Kysely, Migration } from 'kysely';

/**
 * A console session may send commands only when its sign-in also proved the application's
 * sign-secret: `sign_proof` holds the SHA-256 of that secret (null: the session reads only). A
 * rotated sign-secret no longer matches, so the session's commands stop with it, as captured
 * signatures do.
 */
export const consoleCommandProofMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('console_sessions').addColumn('sign_proof', 'varchar(64)').execute();
  },
};
