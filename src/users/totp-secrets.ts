/** A user's TOTP secret sealed at rest (AES-256-GCM bound to the user, security/secret-box.ts). */
import type { Keyring } from '../security/keyring.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { totpSecretSealingContext } from '../security/sealing-contexts.js';

export const sealTotpSecret = (userId: string, secret: string, keyring: Keyring): string => sealSecret(secret, totpSecretSealingContext(userId), keyring.master);
export const openTotpSecret = (userId: string, sealed: string, keyring: Keyring): string => openSecret(sealed, totpSecretSealingContext(userId), keyring.master);
