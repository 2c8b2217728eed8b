import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { canonicalCommandBody, SIGNATURE_PATTERN } from '../../src/domain/command-signature.js';

const python = (vin: string, command: string) => promisify(execFile)('python3', ['-c',
  'import json,sys; sys.stdout.write(json.dumps({"vin": sys.argv[1], "command": sys.argv[2]}, separators=(",", ":"), sort_keys=True))', vin, command]);

describe('canonical command body (D4)', () => {
  it.each([
    ['9BWZZZ377VT004251', 'diagnostics'],
    ['9BWZZZ377VT004251', 'disable_ignition'],
    ['9BW"ZZ\\377', 'lock\tdoors'],
    ['9BWZZZ377VT00425Ç', 'ligar_ignição'],
    ['VIN', 'コマンド🚗'],
  ])('matches Python json.dumps(..., separators=(",", ":"), sort_keys=True) for %j / %j', async (vin, command) => {
    const { stdout } = await python(vin, command);
    expect(canonicalCommandBody(vin, command)).toBe(stdout);
  });

  it('accepts only 64 hex digits as a signature header', () => {
    expect(SIGNATURE_PATTERN.test('A'.repeat(64))).toBe(true);
    for (const bad of ['a'.repeat(63), 'a'.repeat(65), `${'a'.repeat(64)}\n`, ` ${'a'.repeat(64)}`, 'g'.repeat(64)]) expect(SIGNATURE_PATTERN.test(bad)).toBe(false);
  });
});
