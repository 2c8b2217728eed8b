/**
 * `telematics migrate` says what it did: on an empty database, how many migrations it applied and
 * where the schema is now; run again, that there was nothing to do. (Opening the database for a
 * command migrates it first, which once left the command itself with nothing to report.)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFor } from '../../src/store/migrations/index.js';
import { sqliteCapabilities } from '../../src/store/dialect.js';
import { migrationSummary } from '../../src/cli/migrate-command.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { BIN } from '../support/service-process.js';
import { scaled } from '../support/timeouts.js';

const run = promisify(execFile);
const names = Object.keys(migrationsFor(sqliteCapabilities));
const first = names[0]!;
const newest = names[names.length - 1]!;

describe.each(DATABASE_KINDS)('telematics migrate on %s', (kind) => {
  const databases: TestDatabase[] = [];
  afterAll(async () => { await Promise.all(databases.map((d) => d.drop())); });
  const env: NodeJS.ProcessEnv = { ...process.env, TELEMATICS_JWT_KEYS: '', TELEMATICS_MASTER_KEYS: '' };
  delete env.DATABASE_URL;

  it('when the database is empty, then it names how many migrations it applied and the schema it is at; run again, then that nothing was needed', async () => {
    const database = await createTestDatabase(kind);
    databases.push(database);
    const migrate = async (...extra: string[]) => (await run(process.execPath, [BIN, 'migrate', '--database', database.url, ...extra], { env })).stdout.trim();

    const applied = await migrate();
    expect(applied).toMatch(new RegExp(`: applied ${names.length} migrations \\(${first} … ${newest}\\); schema is at ${newest}$`));
    expect(await migrate()).toMatch(new RegExp(`: schema already up to date at ${newest}$`));
    expect(JSON.parse(await migrate('--json'))).toMatchObject({ applied: [], schema: newest });
  }, scaled(120_000));
});

describe('the migrate summary', () => {
  it('when one to three migrations ran, then it names each; more, then the first and the last', () => {
    expect(migrationSummary('db', { applied: ['0020-x'], schema: '0020-x' })).toBe('db: applied 1 migration (0020-x); schema is at 0020-x');
    expect(migrationSummary('db', { applied: ['a', 'b', 'c', 'd'], schema: 'd' })).toBe('db: applied 4 migrations (a … d); schema is at d');
  });
});
