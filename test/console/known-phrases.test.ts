/**
 * The English console's line beside a Portuguese text is looked up by the exact text sent: a
 * changed alert would silently lose its English line, so every text the service sends is held here
 * to have one.
 */
import { describe, expect, it } from 'vitest';
import { CONFIRMATION_MESSAGES } from '../../src/domain/confirmation.js';
import { englishLineFor, KNOWN_PORTUGUESE } from '../../packages/console/src/i18n/known-phrases.js';

describe('English lines for Portuguese texts in the console', () => {
  it('when the service sends an ignition alert, then the console knows an English line for it', () => {
    for (const message of Object.values(CONFIRMATION_MESSAGES)) expect(englishLineFor(message), message).toMatch(/^Warning: /);
  });

  it('when a text is not known, then no line is made up for it', () => {
    expect(englishLineFor('Atenção: texto novo do fabricante.')).toBeUndefined();
    expect(KNOWN_PORTUGUESE).toHaveLength(Object.keys(CONFIRMATION_MESSAGES).length);
  });
});
