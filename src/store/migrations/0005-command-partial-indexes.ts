import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The command indexes cover only the rows their queries look for: Pending commands for the
 * workers, commands with a confirmation code for step 2. A finished command (nearly every row)
 * then costs no index upkeep, which makes each command's writes cheaper (profiled: four B-trees
 * touched per write before, two after; bench/history/2026-11-23-first-full-run.md). Queries name the literal `'Pending'` so
 * SQLite can prove the partial index applies.
 */
export const commandPartialIndexesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('commands_due').execute();
    await db.schema.dropIndex('commands_confirmation').execute();
    await db.schema.createIndex('commands_pending_due').on('commands').column('next_poll_at')
      .where(sql.ref('status'), '=', sql.lit('Pending')).execute();
    await db.schema.createIndex('commands_confirmation_codes').on('commands').columns(['application_id', 'vin', 'command'])
      .where(sql.ref('code_hash'), 'is not', null).execute();
  },
};
