/**
 * The demo's people and operator on both databases: seeded once, found again on later starts,
 * and a person or operator someone removed stays removed (the banner then leaves them out)
 * instead of coming back at the next start with the printed password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.js';
import { removeOperator } from '../../src/operators/manage-operators.js';
import { generateKeyringDocument, keyringFromDocument } from '../../src/security/keyring.js';
import { demoBanner, seedDemo } from '../../src/sim/seed-demo.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { findUserByEmail } from '../../src/store/users-queries.js';
import { removeUser } from '../../src/users/manage-users.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { TEST_CONSOLE_USERS } from '../support/console-people.js';
import { scaled } from '../support/timeouts.js';

const keyring = keyringFromDocument(generateKeyringDocument(), 'test');

describe.each(DATABASE_KINDS)('the demo\'s people on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 3 });
    await migrateToLatest(store);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('when the demo is seeded and started again after a person and the operator were removed, then neither comes back', async () => {
    const first = await seedDemo(store, keyring, systemClock, TEST_CONSOLE_USERS);
    expect(first.kind).toBe('seeded');
    if (first.kind === 'skipped') return;
    expect(first.users.map((u) => u.role)).toEqual(['owner', 'admin', 'dispatcher', 'viewer']);
    expect(first.operator?.email).toBe('operator@demo.example');
    expect(demoBanner(first, 'http://127.0.0.1:8080', undefined, { console: true })).toContain(`operator@demo.example  password ${first.operator!.password}`);

    const viewer = (await findUserByEmail(store.db, first.users[3]!.email))!;
    const deps = { store, keyring, clock: systemClock, users: TEST_CONSOLE_USERS };
    await removeUser(deps, { kind: 'operator', id: 'test' }, viewer.company_id, viewer.id);
    await removeOperator({ db: store.db, passwordHashCost: TEST_CONSOLE_USERS.passwordHashCost, now: () => Date.now() }, 'operator@demo.example');

    const again = await seedDemo(store, keyring, systemClock, TEST_CONSOLE_USERS);
    expect(again.kind).toBe('present');
    if (again.kind === 'skipped') return;
    expect(again.users.map((u) => u.role)).toEqual(['owner', 'admin', 'dispatcher']);
    expect(again.operator).toBeUndefined();
    expect(await findUserByEmail(store.db, viewer.email)).toBeUndefined();
    const banner = demoBanner(again, 'http://127.0.0.1:8080', undefined, { console: true });
    expect(banner).not.toContain('Operator console');
    expect(banner).not.toContain(viewer.email);
  }, scaled(60_000));
});
