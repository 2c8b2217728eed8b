import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Trackers (D11, OPERATIONS.md "Trackers"). A vehicle of a `device` OEM carries the protocol and
 * id of its tracker; the id is unique in the whole registry (a login names one vehicle). An OEM
 * keeps its trackers' settings (which output cuts the ignition) as JSON.
 *
 * `device_commands` is a command's exchange with a tracker, beside its row in `commands`: the
 * text to send, when and by which gateway it was sent (set before the bytes leave, so a restart
 * never sends it twice), and the tracker's answer. A command that must not be sent at all
 * (`Commands blocked.`) records that as `refusal`. Gateways look for unsent rows; the partial
 * index holds only those.
 */
export const trackersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('vehicles').addColumn('device_protocol', 'varchar(16)').execute();
    await db.schema.alterTable('vehicles').addColumn('device_id', 'varchar(64)').execute();
    await db.schema.createIndex('vehicles_device_id').unique().on('vehicles').column('device_id').execute();
    await db.schema.alterTable('oems').addColumn('device_settings', 'text').execute();
    await db.schema.createTable('device_commands')
      .addColumn('command_id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('vin', 'varchar(17)', (c) => c.notNull())
      .addColumn('device_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('command', 'varchar(32)', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('deadline_at', 'bigint', (c) => c.notNull())
      .addColumn('refusal', 'varchar(32)')
      .addColumn('sent_at', 'bigint')
      .addColumn('sent_by', 'varchar(64)')
      .addColumn('answered_at', 'bigint')
      .addColumn('answer', 'text')
      .execute();
    await db.schema.createIndex('device_commands_unsent').on('device_commands').column('deadline_at')
      .where((eb) => eb.and([eb(sql.ref('sent_at'), 'is', null), eb(sql.ref('refusal'), 'is', null)])).execute();
  },
};
