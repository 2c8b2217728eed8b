/** How an application's secrets are kept: client secret hashed, sign-secret sealed to the application id. */
import type { Keyring } from '../security/keyring.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { hashSecret, verifySecret } from '../security/secret-hash.js';

const signSecretAad = (applicationId: string) => `application:${applicationId}:sign-secret`;

export const sealSignSecret = (applicationId: string, secret: string, keyring: Keyring): string =>
  sealSecret(secret, signSecretAad(applicationId), keyring.master);

export const openSignSecret = (applicationId: string, sealed: string, keyring: Keyring): string =>
  openSecret(sealed, signSecretAad(applicationId), keyring.master);

export const hashClientSecret = (secret: string, keyring: Keyring): string => hashSecret(secret, keyring.master);

export const clientSecretMatches = (secret: string, hash: string, keyring: Keyring): boolean =>
  verifySecret(secret, hash, keyring.master);
