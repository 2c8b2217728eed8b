/**
 * Credentials the service generates: 256 bits from the CSPRNG (D3), with a recognisable prefix so
 * secret scanners and people can tell them apart (`tcs_` client secret, `tss_` sign-secret,
 * `tik_` ingest key).
 */
import { randomBytes } from 'node:crypto';

const random = (bytes: number) => randomBytes(bytes).toString('base64url');

export const generateClientId = (): string => `app_${randomBytes(10).toString('hex')}`;
export const generateClientSecret = (): string => `tcs_${random(32)}`;
export const generateSignSecret = (): string => `tss_${random(32)}`;
export const generateIngestKey = (): string => `tik_${random(32)}`;
