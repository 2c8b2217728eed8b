import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errors, ServiceError } from '../../src/domain/errors.js';

const documented = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('| TLM_'))
  .map((line) => {
    const [code = '', status = '', text = ''] = line.split('|').slice(1, 4).map((c) => c.trim());
    return { code, status: Number(status), text };
  });

describe('error catalogue', () => {
  const entries = Object.values(errors);

  it('has unique codes and texts', () => {
    expect(new Set(entries.map((e) => e.code)).size).toBe(entries.length);
    expect(new Set(entries.map((e) => e.text)).size).toBe(entries.length);
  });

  it('is documented entry for entry in docs/errors.md, and nothing else is', () => {
    const fromCode = entries.map(({ code, status, text }) => ({ code, status, text })).sort((a, b) => a.code.localeCompare(b.code));
    expect([...documented].sort((a, b) => a.code.localeCompare(b.code))).toEqual(fromCode);
  });

  it('keeps the interface texts exact', () => {
    expect(errors.vinNotFound.text).toBe('VIN not found or unauthorized access.');
    expect(errors.invalidClientCredentials.text).toBe('Invalid client credentials.');
  });

  it('fills placeholders and leaves unknown ones visible', () => {
    expect(new ServiceError(errors.invalidRequest, { reason: 'body.vin must be string' }).detail).toBe('Invalid request: body.vin must be string.');
    expect(new ServiceError(errors.invalidRequest).detail).toBe('Invalid request: {reason}.');
  });
});
