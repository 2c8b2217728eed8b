import type { Kysely, Migration } from 'kysely';

/**
 * The identity provider's account a person signed in with first (`sub`, unique per provider),
 * so that later sign-ins must come from that account, not any other that claims the same
 * e-mail. Null until the first single sign-on; a reset clears it.
 */
export const ssoSubjectMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('users').addColumn('sso_subject', 'varchar(255)').execute();
  },
};
