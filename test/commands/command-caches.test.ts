/**
 * What the command routes keep, on their own: ended commands' answers (bounded, oldest out) and
 * the signature check with the signatures it accepted and the sign-secrets it opened.
 */
import { describe, expect, it } from 'vitest';
import { FinishedCommands, type FinishedCommand } from '../../src/commands/finished-commands.js';
import { CommandSignatures } from '../../src/commands/verify-command-signature.js';
import { sealSignSecret } from '../../src/registry/application-secrets.js';
import { generateKeyringDocument, keyringFromDocument } from '../../src/security/keyring.js';
import { sign } from '../support/command-client.js';

const VIN = '9BWZZZ377VT004251';

describe('finished commands kept by the routes', () => {
  const finished = (applicationId: string) => ({ applicationId, resource: { id: applicationId } }) as unknown as FinishedCommand;

  it('when an ended command is remembered, then it is answered; another table knows nothing of it', () => {
    const table = new FinishedCommands();
    table.remember('c1', finished('a'));
    expect(table.get('c1')).toEqual(finished('a'));
    expect(new FinishedCommands().get('c1')).toBeUndefined();
  });

  it('when the table is full, then the oldest answer makes room', () => {
    const table = new FinishedCommands();
    for (let i = 0; i <= 10_000; i += 1) table.remember(`c${i}`, finished(`a${i}`));
    expect(table.get('c0')).toBeUndefined();
    expect(table.get('c1')).toEqual(finished('a1'));
    expect(table.get('c10000')).toEqual(finished('a10000'));
  });
});

describe('the signature check of the command routes', () => {
  const keyring = keyringFromDocument(generateKeyringDocument(), 'test');
  const secret = 'a-sign-secret-of-thirty-two-chars-or-more';
  const app = { applicationId: 'app-1', signSecretSealed: sealSignSecret('app-1', secret, keyring) };

  it('when the signature is right, then it passes, again and again; one digit off, or of another command, it is refused', () => {
    const check = new CommandSignatures(keyring);
    const right = sign(secret, VIN, 'lock_doors');
    expect(() => check.verify(app, VIN, 'lock_doors', right)).not.toThrow();
    expect(() => check.verify(app, VIN, 'lock_doors', right)).not.toThrow();
    const offByOne = `${right.slice(0, -1)}${right.endsWith('0') ? '1' : '0'}`;
    expect(() => check.verify(app, VIN, 'lock_doors', offByOne)).toThrow('X-Signature invalid.');
    expect(() => check.verify(app, VIN, 'unlock_doors', right)).toThrow('X-Signature invalid.');
    expect(() => check.verify(app, VIN, 'lock_doors', 'not hex')).toThrow('X-Signature invalid.');
  });

  it('when the application has no sign-secret, or its box opens for another application only, then Sign-secret not found', () => {
    const check = new CommandSignatures(keyring);
    expect(() => check.verify({ applicationId: 'app-1', signSecretSealed: null }, VIN, 'lock_doors', sign(secret, VIN, 'lock_doors'))).toThrow('Sign-secret not found.');
    expect(() => check.verify({ applicationId: 'app-2', signSecretSealed: app.signSecretSealed }, VIN, 'lock_doors', sign(secret, VIN, 'lock_doors')))
      .toThrow('Sign-secret not found.');
  });

  it('when the check belongs to another keyring, then the box does not open', () => {
    const other = new CommandSignatures(keyringFromDocument(generateKeyringDocument(), 'other'));
    expect(() => other.verify(app, VIN, 'lock_doors', sign(secret, VIN, 'lock_doors'))).toThrow('Sign-secret not found.');
  });
});
