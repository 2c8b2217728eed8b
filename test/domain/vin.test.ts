import { describe, expect, it } from 'vitest';
import { isValidVin } from '../../src/domain/vin.js';

describe('VIN shape', () => {
  it.each(['9BWZZZ377VT004251', '1HGCM82633A004352', '93HFB9640PZ100001'])('accepts %s', (vin) => {
    expect(isValidVin(vin)).toBe(true);
  });

  it.each([
    ['too short', '9BWZZZ377VT00425'],
    ['too long', '9BWZZZ377VT0042511'],
    ['with I', '9BWZZZ377VT00425I'],
    ['with O', '9BWZZZ377VT00425O'],
    ['with Q', '9BWZZZ377VT00425Q'],
    ['lower case', '9bwzzz377vt004251'],
    ['with a space', '9BWZZZ377VT00425 '],
    ['not a string', 12345678901234567],
  ])('refuses a VIN %s', (_label, vin) => {
    expect(isValidVin(vin)).toBe(false);
  });
});
