import { describe, expect, it } from 'vitest';
import { classifyStoreError } from '../../src/store/classify-error.js';

const withCode = (code: string | undefined, message = 'boom') => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('classifyStoreError', () => {
  it.each(['57P01', '53300', '08006', '40P01', '40001', 'SQLITE_BUSY', 'ECONNREFUSED', 'ECONNRESET'])('when the code is %s, then the database is unavailable', (code) => {
    expect(classifyStoreError(withCode(code))).toBe('unavailable');
  });

  it('when pg lost its connection (no code, only a message), then the database is unavailable', () => {
    expect(classifyStoreError(withCode(undefined, 'Connection terminated unexpectedly'))).toBe('unavailable');
    expect(classifyStoreError(withCode(undefined, 'timeout exceeded when trying to connect'))).toBe('unavailable');
  });

  it('when PostgreSQL reports a data exception (class 22), then it is bad input', () => {
    expect(classifyStoreError(withCode('22021'))).toBe('bad-input');
    expect(classifyStoreError(withCode('22P05'))).toBe('bad-input');
  });

  it('when the error is anything else, then it has no class', () => {
    expect(classifyStoreError(withCode('23505'))).toBeUndefined();
    expect(classifyStoreError(withCode('SQLITE_CONSTRAINT'))).toBeUndefined();
    expect(classifyStoreError(withCode('FST_ERR_VALIDATION', 'Connection terminated'))).toBeUndefined();
    expect(classifyStoreError('text')).toBeUndefined();
    expect(classifyStoreError(null)).toBeUndefined();
  });
});
