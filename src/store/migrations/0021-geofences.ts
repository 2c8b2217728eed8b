import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialect.js';

/**
 * Geofences (D13):
 * - `geofences`: a company's fences. `geometry` is the GeoJSON the API answers (JSON text);
 *   `kind` (circle, polygon, corridor) and `radius_m` or `width_m` say how to read it; the bounds
 *   (degrees, never smaller than the shape) let the evaluator keep an index without parsing every
 *   geometry. Listed by (company, name, id): the name sorts byte by byte on both databases, so a
 *   page boundary falls at the same fence on either.
 * - `geofence_revisions`: one counter per company, raised in the transaction of every change to
 *   its fences, so the evaluator reloads a company's fences when, and only when, its counter moved.
 */
export function geofencesMigration(capabilities: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createTable('geofences')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('company_id', 'varchar(64)', (c) => c.notNull().references('companies.id'))
        .addColumn('name', sql.raw(capabilities.bytewiseText), (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('geometry', 'text', (c) => c.notNull())
        .addColumn('radius_m', 'double precision')
        .addColumn('width_m', 'double precision')
        .addColumn('min_lon', 'double precision', (c) => c.notNull())
        .addColumn('min_lat', 'double precision', (c) => c.notNull())
        .addColumn('max_lon', 'double precision', (c) => c.notNull())
        .addColumn('max_lat', 'double precision', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('geofences_company_name').on('geofences').columns(['company_id', 'name', 'id']).execute();

      await db.schema.createTable('geofence_revisions')
        .addColumn('company_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('revision', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
