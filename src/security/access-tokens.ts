/**
 * Bearer tokens of D3: HS256 JWTs with `kid`, `iss`, `aud`, `iat`, `exp`, `jti`, `typ: at+jwt`.
 * `sub` is the client id; private claims carry the company, the application and the application's
 * credentials version (bumped by secret rotation, so older tokens stop working); `scope` lists the
 * application's scopes at issue (RFC 9068), for the client to read: what a request may do is
 * judged on the application's scopes at that request.
 * Verification pins the algorithm, issuer, audience and type; `alg: none`, other algorithms and
 * unknown `kid`s are refused by construction.
 */
import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { currentKey, type SecretKey } from './keyring.js';

export interface TokenSettings {
  readonly issuer: string;
  readonly audience: string;
}

export interface TokenSubject {
  readonly clientId: string;
  readonly applicationId: string;
  readonly companyId: string;
  readonly credentialsVersion: number;
  readonly lifetimeSeconds: number;
  /** The `scope` claim (RFC 9068): the application's scopes when the token was issued, space-separated. */
  readonly scope: string;
}

export interface TokenClaims {
  readonly clientId: string;
  readonly applicationId: string;
  readonly companyId: string;
  readonly credentialsVersion: number;
  readonly expiresAt: number;
}

const ALGORITHM = 'HS256';
const TOKEN_TYPE = 'at+jwt';

export async function issueAccessToken(subject: TokenSubject, nowMs: number, keys: readonly SecretKey[], settings: TokenSettings): Promise<string> {
  const key = currentKey(keys);
  const iat = Math.floor(nowMs / 1000);
  return new SignJWT({ cid: subject.companyId, aid: subject.applicationId, ver: subject.credentialsVersion, scope: subject.scope })
    .setProtectedHeader({ alg: ALGORITHM, kid: key.id, typ: TOKEN_TYPE })
    .setSubject(subject.clientId)
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + subject.lifetimeSeconds)
    .setJti(randomUUID())
    .sign(key.key);
}

/** Why a token was refused; for logs only, never for the response body. */
export class TokenRejected extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'TokenRejected';
  }
}

function readClaims(payload: JWTPayload): TokenClaims {
  const { sub, cid, aid, ver, exp } = payload;
  if (typeof sub !== 'string' || typeof cid !== 'string' || typeof aid !== 'string' || typeof ver !== 'number' || typeof exp !== 'number') {
    throw new TokenRejected('token lacks the service claims');
  }
  return { clientId: sub, companyId: cid, applicationId: aid, credentialsVersion: ver, expiresAt: exp * 1000 };
}

export async function verifyAccessToken(token: string, nowMs: number, keys: readonly SecretKey[], settings: TokenSettings): Promise<TokenClaims> {
  const keyFor = (header: JWTHeaderParameters): Uint8Array => {
    const key = keys.find((k) => k.id === header.kid);
    if (!key) throw new TokenRejected('unknown kid');
    return key.key;
  };
  try {
    const { payload } = await jwtVerify(token, keyFor, {
      algorithms: [ALGORITHM],
      issuer: settings.issuer,
      audience: settings.audience,
      typ: TOKEN_TYPE,
      currentDate: new Date(nowMs),
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
    });
    return readClaims(payload);
  } catch (error) {
    if (error instanceof TokenRejected) throw error;
    if (error instanceof joseErrors.JOSEError) throw new TokenRejected(error.code);
    throw new TokenRejected('malformed token');
  }
}
