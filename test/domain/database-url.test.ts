import { describe, expect, it } from 'vitest';
import { isPostgresUrl } from '../../src/domain/database-url.js';

describe('database URL', () => {
  it('when --database is a postgres:// or postgresql:// URL, then it names PostgreSQL; a file path or :memory: is SQLite', () => {
    expect(['postgres://u@h/db', 'POSTGRESQL://h/db'].map(isPostgresUrl)).toEqual([true, true]);
    expect(['./data/telematics.db', ':memory:', 'mysql://h/db', 'postgres:/h'].map(isPostgresUrl)).toEqual([false, false, false, false]);
  });
});
