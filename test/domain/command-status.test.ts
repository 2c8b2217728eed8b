import { describe, expect, it } from 'vitest';
import { COMMAND_ERROR_TEXTS, commandErrorText } from '../../src/domain/command-status.js';

describe('automaker reasons to command error texts', () => {
  it('maps each known reason to its text and anything else to Internal system failures.', () => {
    for (const [reason, text] of Object.entries(COMMAND_ERROR_TEXTS)) expect(commandErrorText(reason)).toBe(text);
    for (const odd of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'TIMEOUT', '', 42, null, undefined]) {
      expect(commandErrorText(odd)).toBe('Internal system failures.');
    }
  });
});
